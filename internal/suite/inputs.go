package suite

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Bounds of the inputs corepin makes: far beyond them a size is a typo
// that would fill a disk.
const (
	MaxTextBytes  = 1 << 30
	MaxCFunctions = 100000
)

func validateInputs(inputs []Input) error {
	seen := map[string]bool{}
	for _, in := range inputs {
		kinds := 0
		for _, set := range []bool{in.TextBytes != 0, in.CFunctions != 0, in.Content != nil} {
			if set {
				kinds++
			}
		}
		switch {
		case !filepath.IsLocal(in.File) || strings.ContainsRune(in.File, 0):
			return fmt.Errorf("input %q: give a file name inside the benchmark's work folder", in.File)
		case seen[filepath.Clean(in.File)]:
			return fmt.Errorf("input %q is given twice", in.File)
		case kinds != 1:
			return fmt.Errorf("input %q: give exactly one of text_bytes, c_functions and content", in.File)
		case in.TextBytes < 0 || in.TextBytes > MaxTextBytes:
			return fmt.Errorf("input %q: text_bytes %d: give 1 to %d", in.File, in.TextBytes, MaxTextBytes)
		case in.CFunctions < 0 || in.CFunctions > MaxCFunctions:
			return fmt.Errorf("input %q: c_functions %d: give 1 to %d", in.File, in.CFunctions, MaxCFunctions)
		}
		seen[filepath.Clean(in.File)] = true
	}
	return nil
}

// Prepare makes, in a suite with work = true, each benchmark's folder
// work/<name>, where it then runs (WorkDir), and its inputs there: the
// same bytes on every machine, made before the first run and never timed.
// A command must leave its inputs as they are: they are made once for all
// its runs.
func (s *Suite) Prepare(work string) error {
	for _, b := range s.Benchmarks {
		if !s.madeInWork(b) {
			continue
		}
		dir := filepath.Join(work, b.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("making %s's inputs: %w", b.Name, err)
		}
		for _, in := range b.Inputs {
			p := filepath.Join(dir, in.File)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return fmt.Errorf("making %s's input %s: %w", b.Name, in.File, err)
			}
			if err := writeInput(p, in); err != nil {
				return fmt.Errorf("making %s's input %s: %w", b.Name, in.File, err)
			}
		}
	}
	s.work = work
	return nil
}

func writeInput(path string, in Input) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	switch {
	case in.Content != nil:
		_, err = io.WriteString(w, *in.Content)
	case in.TextBytes > 0:
		err = writeText(w, in.TextBytes)
	default:
		err = writeC(w, in.CFunctions)
	}
	if err == nil {
		err = w.Flush()
	}
	return errors.Join(err, f.Close())
}

// splitmix64 is the generator of every made input: a few lines whose
// output no Go release changes (Steele, Lea and Flood, "Fast splittable
// pseudorandom number generators", OOPSLA 2014).
type splitmix64 uint64

func (s *splitmix64) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// words are the vocabulary of made text: words of English prose, so that
// compressors find what they find in prose.
var words = strings.Fields(`the of and to in a is that for it as was with be by on not he this are or his
from at which but have an they you were her she there been one all we their has would when if so no
will more can said who what about out up them into some could time other than then only its over
also after two new first like any these may way most where well our through back years made much
should because each just those people how too little state good very make world still own see men
work long get here between both life being under never day same another know while last might us
great old year off come since against go came right used take three states himself few house use
during without again place around however home small found thought went say part once general
high upon school every does got united left number course war until always away something fact
water though less public put think almost hand enough far took head yet government system better
set told nothing night end why called didn't eyes find going look asked later knew point next
program city business give group toward young days let room president side social given present
several order national possible rather second face per among form important often things looking
early white case john become large big need four within felt along children saw best church ever
least power development light thing seemed family interest want members mind country area others`)

// writeText writes n bytes of text: words drawn from the vocabulary,
// lines of up to 72 bytes, a sentence's end now and then.
func writeText(w *bufio.Writer, n int64) error {
	rng := splitmix64(1)
	var line []byte
	written := int64(0)
	emit := func(b []byte) error {
		if rest := n - written; int64(len(b)) > rest {
			b = b[:rest]
		}
		k, err := w.Write(b)
		written += int64(k)
		return err
	}
	for written < n {
		r := rng.next()
		word := words[r%uint64(len(words))]
		if len(line)+len(word)+2 > 72 {
			line = append(line, '\n')
			if err := emit(line); err != nil {
				return err
			}
			line = line[:0]
		}
		if len(line) > 0 {
			line = append(line, ' ')
		}
		line = append(line, word...)
		if r>>60 == 0 { // one word in 16 ends a sentence
			line = append(line, '.')
		}
	}
	return nil
}

// writeC writes a C program of n functions, each a loop of arithmetic,
// a switch and a call of the one before, and a main that calls the last
// and prints its result: work for an optimising compiler's every pass.
func writeC(w *bufio.Writer, n int) error {
	rng := splitmix64(2)
	fmt.Fprintf(w, "/* made by corepin: %d functions */\n#include <stdio.h>\n\n", n)
	for i := range n {
		a, b, c := rng.next()%97+1, rng.next()%89+1, rng.next()%16+4
		fmt.Fprintf(w, "static unsigned long f%d(unsigned long x) {\n", i)
		fmt.Fprintf(w, "\tunsigned long acc = x * %dUL + %dUL;\n", a, b)
		fmt.Fprintf(w, "\tfor (int i = 0; i < %d; i++) {\n", c)
		fmt.Fprintf(w, "\t\tswitch ((acc >> %d) & 7) {\n", rng.next()%13)
		for k := range 8 {
			fmt.Fprintf(w, "\t\tcase %d: acc = acc * %dUL ^ (acc >> %d); break;\n", k, rng.next()%251+3, rng.next()%31+1)
		}
		fmt.Fprintf(w, "\t\t}\n\t\tif (acc %% %dUL == 0) acc += i;\n\t}\n", rng.next()%7+2)
		if i > 0 {
			fmt.Fprintf(w, "\treturn acc + f%d(acc & 0xff);\n}\n\n", i-1)
		} else {
			fmt.Fprintf(w, "\treturn acc;\n}\n\n")
		}
	}
	_, err := fmt.Fprintf(w, "int main(void) {\n\tprintf(\"%%lu\\n\", f%d(1));\n\treturn 0;\n}\n", max(n-1, 0))
	return err
}
