package main

import (
	"flag"
	"fmt"
	"slices"
	"strings"
)

// The shells ask corepin itself what to complete: each script calls the
// hidden "corepin __complete WORD..." with the words typed so far, the last
// one partial, and offers the lines it prints (files when it prints none).
var completionScripts = map[string]string{
	"bash": `# corepin completion for bash: source <(corepin completion bash)
_corepin() {
	local IFS=$'\n'
	COMPREPLY=($(corepin __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -F _corepin corepin
`,
	"zsh": `#compdef corepin
# corepin completion for zsh: source <(corepin completion zsh)
_corepin() {
	local -a choices
	local IFS=$'\n'
	choices=($(corepin __complete "${(@)words[2,CURRENT]}" 2>/dev/null))
	if (( ${#choices} )); then compadd -- $choices; else _files; fi
}
compdef _corepin corepin
`,
	"fish": `# corepin completion for fish: corepin completion fish | source
complete -c corepin -a '(corepin __complete (commandline -opc)[2..-1] (commandline -ct))'
`,
}

func newCompletionCmd() *command {
	return &command{
		use:   "completion bash|zsh|fish",
		short: "Print the shell completion script for bash, zsh or fish",
		long: `Print the completion script for bash, zsh or fish. Load it in the current
shell with:

  source <(corepin completion bash)
  source <(corepin completion zsh)
  corepin completion fish | source`,
		example: "  corepin completion bash > /etc/bash_completion.d/corepin",
		args:    exactArgs(1, "want one shell: bash, zsh or fish"),
		run: func(in *invocation, args []string) error {
			script, ok := completionScripts[args[0]]
			if !ok {
				return usageError{fmt.Errorf("no completion for %q: want bash, zsh or fish", args[0])}
			}
			_, err := fmt.Fprint(in.stdout, script)
			return err
		},
	}
}

// newCompleteCmd answers the completion scripts.
func newCompleteCmd(root *command) *command {
	return &command{
		use:    "__complete WORD...",
		hidden: true,
		raw:    true,
		run: func(in *invocation, words []string) error {
			for _, w := range completions(root, words) {
				fmt.Fprintln(in.stdout, w)
			}
			return nil
		},
	}
}

// completions are the candidates for the last of words.
func completions(root *command, words []string) []string {
	if len(words) == 0 {
		words = []string{""}
	}
	cur, before := words[len(words)-1], words[:len(words)-1]
	cmd := root
	for len(before) > 0 && len(cmd.commands) > 0 {
		sub := cmd.find(before[0])
		if sub == nil {
			break
		}
		cmd, before = sub, before[1:]
	}
	var cands []string
	switch {
	case len(before) > 0 && takesValue(cmd, before[len(before)-1]):
		cands = cmd.completions[flagName(cmd, before[len(before)-1])]
	case strings.HasPrefix(cur, "-"):
		if cmd.fs != nil {
			cmd.fs.VisitAll(func(f *flag.Flag) { cands = append(cands, "--"+f.Name) })
		}
		cands = append(cands, "--help")
	case len(cmd.commands) > 0:
		for _, s := range cmd.visible() {
			cands = append(cands, s.name())
		}
	}
	var out []string
	for _, c := range cands {
		if strings.HasPrefix(c, cur) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// flagName is the flag a word such as --cpu or -q names, or "".
func flagName(cmd *command, word string) string {
	if !strings.HasPrefix(word, "-") || strings.Contains(word, "=") {
		return ""
	}
	name := strings.TrimPrefix(word[1:], "-")
	if long, ok := cmd.aliases[name]; ok {
		name = long
	}
	return name
}

// takesValue reports whether word is a flag whose value comes next.
func takesValue(cmd *command, word string) bool {
	name := flagName(cmd, word)
	if name == "" || cmd.fs == nil {
		return false
	}
	f := cmd.fs.Lookup(name)
	if f == nil {
		return false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}
