package cli

import (
	"flag"
	"fmt"
	"slices"
	"strings"
)

// The shells ask the program itself what to complete: each script calls
// the hidden "PROGRAM __complete WORD..." with the words typed so far, the
// last one partial, and offers the lines it prints (files when it prints
// none). The scripts are written for corepin; CompletionCommand puts in
// the root's name.
func completionScript(shell string) (string, bool) {
	switch shell {
	case "bash":
		return bashCompletion, true
	case "zsh":
		return zshCompletion, true
	case "fish":
		return fishCompletion, true
	}
	return "", false
}

const bashCompletion = `# corepin completion for bash: source <(corepin completion bash)
_corepin() {
	local IFS=$'\n'
	COMPREPLY=($(corepin __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -F _corepin corepin
`

const zshCompletion = `#compdef corepin
# corepin completion for zsh: source <(corepin completion zsh)
_corepin() {
	local -a choices
	local IFS=$'\n'
	choices=($(corepin __complete "${(@)words[2,CURRENT]}" 2>/dev/null))
	if (( ${#choices} )); then compadd -- $choices; else _files; fi
}
compdef _corepin corepin
`

const fishCompletion = `# corepin completion for fish: corepin completion fish | source
complete -c corepin -a '(corepin __complete (commandline -opc)[2..-1] (commandline -ct))'
`

// CompletionCommand prints the completion scripts of root's program; add
// CompleteCommand(root) too, which answers them.
func CompletionCommand(root *Command) *Command {
	name := root.Name()
	return &Command{
		Use:   "completion bash|zsh|fish",
		Short: "Print the shell completion script for bash, zsh or fish",
		Long: `Print the completion script for bash, zsh or fish. Load it in the current
shell with:

  source <(corepin completion bash)
  source <(corepin completion zsh)
  corepin completion fish | source`,
		Example: "  corepin completion bash > /etc/bash_completion.d/corepin",
		Args:    ExactArgs(1, "want one shell: bash, zsh or fish"),
		Run: func(in *Invocation, args []string) error {
			script, ok := completionScript(args[0])
			if !ok {
				return UsageError{fmt.Errorf("no completion for %q: want bash, zsh or fish", args[0])}
			}
			_, err := fmt.Fprint(in.Stdout, strings.ReplaceAll(script, "corepin", name))
			return err
		},
	}
}

// CompleteCommand is the hidden command the completion scripts call.
func CompleteCommand(root *Command) *Command {
	return &Command{
		Use:    "__complete WORD...",
		Hidden: true,
		Raw:    true,
		Run: func(in *Invocation, words []string) error {
			for _, w := range completions(root, words) {
				fmt.Fprintln(in.Stdout, w)
			}
			return nil
		},
	}
}

// completions are the candidates for the last of words.
func completions(root *Command, words []string) []string {
	if len(words) == 0 {
		words = []string{""}
	}
	cur, before := words[len(words)-1], words[:len(words)-1]
	cmd := root
	for len(before) > 0 && len(cmd.commands) > 0 {
		if n := cmd.persistentWords(before); n > 0 {
			before = before[n:]
			continue
		}
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
		add := func(f *flag.Flag) { cands = append(cands, "--"+f.Name) }
		if cmd.fs != nil {
			cmd.fs.VisitAll(add)
		}
		for k := cmd; k != nil; k = k.parent {
			if k.persistent != nil {
				k.persistent.VisitAll(add)
			}
		}
		cands = append(cands, "--help")
	case len(cmd.commands) > 0:
		for _, s := range cmd.visible() {
			cands = append(cands, s.Name())
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
func flagName(cmd *Command, word string) string {
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
func takesValue(cmd *Command, word string) bool {
	name := flagName(cmd, word)
	if name == "" {
		return false
	}
	f := cmd.Flag(name)
	return f != nil && !isBool(f)
}
