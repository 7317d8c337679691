package bench

import (
	"slices"
	"testing"
	"time"

	"presetsim.dev/presetsim/outcome"
)

func TestPhases(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	scenario := func(total int, phases ...outcome.Phase) outcome.Scenario {
		return outcome.Scenario{Duration: ms(total), Phases: phases}
	}
	create := func(n int) outcome.Phase { return outcome.Phase{Name: "I create the pod:", Duration: ms(n)} }
	check := func(n int) outcome.Phase {
		return outcome.Phase{Name: `the pod "p" should be as submitted`, Duration: ms(n)}
	}
	cases := []struct {
		name string
		in   []outcome.Scenario
		want []phaseRow
	}{
		{name: "no scenario", in: nil, want: nil},
		{name: "no phases recorded", in: []outcome.Scenario{scenario(5)}, want: nil},
		{
			name: "medians per phase, and the rest",
			in: []outcome.Scenario{
				scenario(20, create(10), check(5)),
				scenario(12, create(6), check(4)),
				scenario(40, create(30), check(6)),
			},
			want: []phaseRow{{"I create the pod:", ms(10)}, {`the pod "p" should be as submitted`, ms(5)}, {phaseOther, ms(4)}},
		},
		{
			name: "a phase some scenarios did not reach counts as zero for them",
			in: []outcome.Scenario{
				scenario(10, create(10)),
				scenario(10, create(10)),
				scenario(20, create(10), check(8)),
			},
			want: []phaseRow{{"I create the pod:", ms(10)}, {`the pod "p" should be as submitted`, 0}, {phaseOther, 0}},
		},
		{
			name: "a phase that first appears in a later scenario keeps its place",
			in: []outcome.Scenario{
				scenario(10, create(9)),
				scenario(20, create(9), check(9)),
				scenario(20, create(9), check(9)),
			},
			want: []phaseRow{{"I create the pod:", ms(9)}, {`the pod "p" should be as submitted`, ms(9)}, {phaseOther, ms(2)}},
		},
		{
			name: "a step run twice adds up",
			in:   []outcome.Scenario{scenario(30, create(10), create(15))},
			want: []phaseRow{{"I create the pod:", ms(25)}, {phaseOther, ms(5)}},
		},
		{
			name: "clock skew never makes the rest negative",
			in:   []outcome.Scenario{scenario(10, create(11))},
			want: []phaseRow{{"I create the pod:", ms(11)}, {phaseOther, 0}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := phases(c.in); !slices.Equal(got, c.want) {
				t.Errorf("phases:\n got %v\nwant %v", got, c.want)
			}
		})
	}
}
