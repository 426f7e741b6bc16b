/* rule.c - reading the acceptance rule, with session.ParseRule's syntax:
 * a base (exact, soft or any) and "+key op value" requirements. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static void trim(char *s)
{
	size_t n = strlen(s), i = 0;
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n'))
		s[--n] = 0;
	while (s[i] == ' ' || s[i] == '\t' || s[i] == '\n')
		i++;
	memmove(s, s + i, n - i + 1);
}

static int is_int(const char *s)
{
	if (*s == '+' || *s == '-')
		s++;
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

static int parse_req(const char *p, cp_rule *r, char *msg, size_t len)
{
	static const char *ops[] = {"<=", ">=", "="};
	for (int i = 0; i < 3; i++) {
		const char *at = strstr(p, ops[i]);
		if (!at)
			continue;
		if (r->nreqs == CP_MAX_REQS) {
			cp_snprintf(msg, len, "more than %d requirements", CP_MAX_REQS);
			return -1;
		}
		size_t klen = (size_t)(at - p);
		const char *value = at + strlen(ops[i]);
		if (klen >= sizeof r->reqs[0].key || strlen(value) >= sizeof r->reqs[0].value) {
			cp_snprintf(msg, len, "requirement \"%s\" is too long", p);
			return -1;
		}
		char key[16];
		memcpy(key, p, klen);
		key[klen] = 0;
		if (!strcmp(key, "uclamp-min") || !strcmp(key, "uclamp-max") || !strcmp(key, "step") || !strcmp(key, "nice")) {
			if (!is_int(value)) {
				cp_snprintf(msg, len, "%s needs a number, have \"%s\"", key, value);
				return -1;
			}
		} else if (!strcmp(key, "qos")) {
			int level;
			if (strcmp(ops[i], "=") != 0) {
				cp_snprintf(msg, len, "want qos=LEVEL, have qos%s%s", ops[i], value);
				return -1;
			}
			if (cp_qos_parse(value, &level) != 0) {
				cp_snprintf(msg, len,
					    "qos=%s: unknown QoS level \"%s\" (want one of background, utility, default, user-initiated, deadline-request, user-interactive, or 0-5)",
					    value, value);
				return -1;
			}
		} else if (!strcmp(key, "policy")) {
			int policy;
			if (strcmp(ops[i], "=") != 0) {
				cp_snprintf(msg, len, "want policy=NAME, have policy%s%s", ops[i], value);
				return -1;
			}
			if (cp_policy_parse(value, &policy) != 0) {
				cp_snprintf(msg, len, "policy=%s: unknown scheduling policy \"%s\" (want other, fifo, rr, batch or idle)", value, value);
				return -1;
			}
			/* the read-back is compared by name: keep the policy's own spelling */
			char pol[16];
			strcpy(r->reqs[r->nreqs].key, key);
			strcpy(r->reqs[r->nreqs].op, ops[i]);
			cp_snprintf(r->reqs[r->nreqs].value, sizeof r->reqs[0].value, "%s", cp_policy_name(policy, pol, sizeof pol));
			r->nreqs++;
			return 0;
		} else {
			cp_snprintf(msg, len, "unknown requirement \"%s\" (uclamp-min, uclamp-max, step, nice, qos, policy)", key);
			return -1;
		}
		strcpy(r->reqs[r->nreqs].key, key);
		strcpy(r->reqs[r->nreqs].op, ops[i]);
		strcpy(r->reqs[r->nreqs].value, value);
		r->nreqs++;
		return 0;
	}
	cp_snprintf(msg, len, "requirement \"%s\" has no =, <= or >=", p);
	return -1;
}

int cp_rule_parse(const char *text, cp_rule *r, char *msg, size_t len)
{
	memset(r, 0, sizeof *r);
	char *copy = strdup(text);
	if (!copy) {
		cp_snprintf(msg, len, "out of memory");
		return -1;
	}
	trim(copy);
	char detail[200] = "";
	int rc = 0;
	char *save = NULL, *part = copy, *plus = strchr(part, '+');
	(void)save;
	if (plus)
		*plus = 0;
	trim(part);
	if (strcmp(part, "exact") && strcmp(part, "soft") && strcmp(part, "any")) {
		cp_snprintf(msg, len, "acceptance rule \"%s\": the first part must be exact, soft or any", text);
		free(copy);
		return -1;
	}
	strcpy(r->base, part);
	while (plus) {
		part = plus + 1;
		plus = strchr(part, '+');
		if (plus)
			*plus = 0;
		trim(part);
		if (parse_req(part, r, detail, sizeof detail) != 0) {
			cp_snprintf(msg, len, "acceptance rule \"%s\": %s", text, detail);
			rc = -1;
			break;
		}
	}
	free(copy);
	return rc;
}

void cp_rule_string(const cp_rule *r, char *buf, size_t len)
{
	cp_snprintf(buf, len, "%s", r->base);
	for (int i = 0; i < r->nreqs; i++) {
		size_t used = strlen(buf);
		cp_snprintf(buf + used, len - used, "+%s%s%s", r->reqs[i].key, r->reqs[i].op, r->reqs[i].value);
	}
}
