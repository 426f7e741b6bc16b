package page

import (
	_ "embed"
	"html/template"
	"io"
	"sync"
)

//go:embed style.html.tmpl
var styleTemplate string

//go:embed simple.html.tmpl
var simpleTemplate string

var simple = sync.OnceValue(func() *template.Template { // parsed on first use, as page is
	return template.Must(template.Must(template.New("simple").Funcs(template.FuncMap{"text": text}).Parse(styleTemplate)).Parse(simpleTemplate))
})

// Simple is a page of facts, charts and tables, for the experiments and
// comparisons: the same look as the run report.
type Simple struct {
	Title, Subtitle string
	Facts           []Fact
	Notes           []string
	Sections        []SimpleSection
	Footer          string // "" says the JSON beside the page holds every number
}

// SimpleSection is a titled group of charts, one table and notes.
type SimpleSection struct {
	Title  string
	Charts []template.HTML
	Table  Table
	Notes  []string
}

// Render writes the page.
func (s *Simple) Render(w io.Writer) error { return simple().Execute(w, s) }
