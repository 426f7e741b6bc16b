package experiment

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"corepin.dev/corepin/internal/atomicfile"
	"corepin.dev/corepin/internal/page"
	"corepin.dev/corepin/internal/termsafe"
)

// A Result is an experiment's result with its views.
type Result interface {
	WriteText(io.Writer) error
	Page() *page.Simple
}

// Write prints the result as a text table, or JSON, on stdout, and given
// a folder writes NAME.json and NAME.html into it, said on stderr.
func Write(stdout, stderr io.Writer, name string, res Result, asJSON bool, folder string) error {
	if asJSON {
		if err := termsafe.WriteJSON(stdout, res); err != nil {
			return err
		}
	} else if err := res.WriteText(stdout); err != nil {
		return err
	}
	if folder == "" {
		return nil
	}
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return err
	}
	js := filepath.Join(folder, name+".json")
	if err := atomicfile.Write(js, func(w io.Writer) error { return termsafe.WriteJSON(w, res) }); err != nil {
		return err
	}
	html := filepath.Join(folder, name+".html")
	if err := atomicfile.Write(html, res.Page().Render); err != nil {
		return err
	}
	fmt.Fprintln(stderr, "wrote", js, "and", html)
	return nil
}
