package workloads

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
)

// A built-in workload runs in a child process of its own when corepin
// starts it as a command (corepin run starts it on target that way): the
// child is the same program, told what to run by its arguments, and it
// answers with one JSON Result on its standard output. ChildArgs is what
// the parent passes, ChildMain the child's side, ReadChildResult the
// parent's reading of the answer: the two sides of the handshake live
// here together, so they cannot drift apart.

// ChildCommand is the reserved first argument that makes a program that
// embeds the workloads run one of them as the child:
//
//	corepin workload NAME --size quick|full
const ChildCommand = "workload"

// ChildArgs are the arguments, after the program, that make the child run
// the workload name at size.
func ChildArgs(name string, size Size) []string {
	return []string{ChildCommand, name, "--size", string(size)}
}

// ChildMain is the child: it runs the workload its arguments (those after
// ChildCommand) name and writes its Result as JSON on stdout. It returns
// the exit status: 0 for a result (valid or not), 1 when the workload
// failed, 2 for arguments it cannot run.
func ChildMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(ChildCommand, flag.ContinueOnError)
	fs.SetOutput(stderr)
	size := fs.String("size", string(Full), "full or quick")
	usage := func(msg string) int {
		fmt.Fprintf(stderr, "corepin %s: %s (usage: corepin %s NAME --size full|quick)\n", ChildCommand, msg, ChildCommand)
		return 2
	}
	var names []string
	for len(args) > 0 { // the name may come before or after the flag
		if err := fs.Parse(args); err != nil {
			return 2
		}
		args = fs.Args()
		if len(args) > 0 {
			names, args = append(names, args[0]), args[1:]
		}
	}
	if len(names) != 1 {
		return usage("want one workload name")
	}
	w, ok := ByName(names[0])
	if !ok {
		return usage(fmt.Sprintf("no built-in workload %q", names[0]))
	}
	res, err := w.Run(Size(*size))
	if err != nil {
		fmt.Fprintf(stderr, "corepin %s: %v\n", ChildCommand, err)
		return 1
	}
	if err := json.NewEncoder(stdout).Encode(res); err != nil {
		return 1
	}
	return 0
}

// ReadChildResult reads the Result a child wrote on its standard output.
func ReadChildResult(stdout []byte) (Result, error) {
	var res Result
	if err := json.Unmarshal(stdout, &res); err != nil {
		return Result{}, err
	}
	return res, nil
}
