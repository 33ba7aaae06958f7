package money

import "testing"

func TestParseAndString(t *testing.T) {
	for in, want := range map[string]string{"12.5": "12.50", "-3.05": "-3.05", "7": "7.00", "0": "0.00", "-0.01": "-0.01",
		"12.500": "12.50", "1234567.89": "1234567.89"} {
		a, err := Parse(in)
		if err != nil || a.String() != want {
			t.Errorf("Parse(%q) = %v, %v; want %s", in, a, err, want)
		}
	}
	for _, bad := range []string{"", "1.234", "abc", "1e3", ".5", "+1", "1.2.3"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
	if Amount(-250).Abs() != 250 {
		t.Error("Abs")
	}
}

func TestGrouped(t *testing.T) {
	for a, want := range map[Amount]string{0: "0.00", 99999: "999.99", 100000: "1,000.00", -11075575: "-110,755.75", 123456789012: "1,234,567,890.12"} {
		if got := a.Grouped(); got != want {
			t.Errorf("%d: %s, want %s", a, got, want)
		}
	}
}
