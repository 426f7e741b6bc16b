package telemetry

import (
	"encoding/csv"
	"io"
	"strconv"
)

// WriteCSV writes the samples in long format, one row per sample per CPU:
// t_s,cpu,util_pct,freq_mhz,freq_source. An unknown value is an empty field.
func (s *Series) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	for _, smp := range s.Samples {
		cw.Write([]string{
			strconv.FormatFloat(smp.T, 'f', 3, 64),
			strconv.Itoa(smp.CPU),
			optFloat(smp.UtilPct, 1),
			optFloat(smp.FreqMHz, 1),
			smp.FreqSource,
		})
	}
	cw.Flush()
	return cw.Error()
}

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

func optFloat(v *float64, prec int) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'f', prec, 64)
}
