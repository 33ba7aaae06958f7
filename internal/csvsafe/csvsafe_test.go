package csvsafe

import "testing"

func TestText(t *testing.T) {
	for in, want := range map[string]string{
		`=HYPERLINK("http://x.example","y")`: `'=HYPERLINK("http://x.example","y")`,
		`=cmd|' /C calc'!A0`:                 `'=cmd|' /C calc'!A0`,
		"@SUM(A1:A2)":                        "'@SUM(A1:A2)",
		"+SUM(1)":                            "'+SUM(1)",
		"-2+3":                               "'-2+3",
		"-12.50":                             "'-12.50", // a text column: a leading sign is neutralised
		"\t=1":                               `\t=1`,    // the control escaped first: text, no formula
		"\r=1":                               `\r=1`,
		"\x1b]8;;https://evil.example\x1b\\pay\x1b]8;;\x1b\\": `\x1b]8;;https://evil.example\x1b\pay\x1b]8;;\x1b\`, // an OSC 8 link
		"a\x00b\u202ec\u009b":                  `a\x00b\u202ec\u009b`,
		"two\nlines":                           "two\nlines",
		"":                                     "",
		"inv-1":                                "inv-1",
		"a=b":                                  "a=b",
		" =1":                                  " =1",
		"'=1":                                  "'=1",
		"6b1e0c9a-0000-4000-8000-000000000001": "6b1e0c9a-0000-4000-8000-000000000001",
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNumber(t *testing.T) {
	for in, want := range map[string]string{
		"-12.50":       "-12.50",
		"+3":           "+3",
		"0":            "0",
		"1234567.891":  "1234567.891",
		"-2+3":         "'-2+3",
		"+SUM(1)":      "'+SUM(1)",
		"-":            "'-",
		"+":            "'+",
		"-.5":          "'-.5",
		"-1.":          "'-1.",
		"-1e3":         "'-1e3",
		"-1.2.3":       "'-1.2.3",
		"=1":           "'=1",
		"@1":           "'@1",
		"\t1":          `\t1`,
		"12 EUR":       "12 EUR",
		"-12.50\r=cmd": `'-12.50\r=cmd`,
	} {
		if got := Number(in); got != want {
			t.Errorf("Number(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLive(t *testing.T) {
	for cell, want := range map[string]bool{
		"=1": true, "@SUM(1)": true, "\t1": true, "\r1": true, "+SUM(1)": true, "-2+3": true, "-": true,
		"-12.50": false, "+3": false, "'=1": false, "": false, "a=b": false,
	} {
		if got := Live(cell); got != want {
			t.Errorf("Live(%q) = %v, want %v", cell, got, want)
		}
		if Live(Text(cell)) || Live(Number(cell)) {
			t.Errorf("Text or Number of %q is live", cell)
		}
	}
}
