package telemetry

import (
	"encoding/csv"
	"io"
	"strconv"

	"corepin.dev/corepin/internal/samples"
)

// WriteCSV writes the samples in long format, one row per sample per CPU:
// t_s,cpu,util_pct,freq_mhz,freq_source (see samples.WriteCSV).
func (s *Series) WriteCSV(w io.Writer) error { return samples.WriteCSV(w, s.Samples) }

// WriteThermalCSV writes the temperatures: t_s,zone,type,temp_c.
func (s *Series) WriteThermalCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"t_s", "zone", "type", "temp_c"})
	for _, th := range s.Thermal {
		cw.Write([]string{strconv.FormatFloat(th.T, 'f', 3, 64), th.Zone, th.Type, strconv.FormatFloat(th.TempC, 'f', 1, 64)})
	}
	cw.Flush()
	return cw.Error()
}
