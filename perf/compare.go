package perf

import (
	"context"
	"fmt"
	"io"
	"slices"
)

// Comparison is the outcome of running one test on several stacks in turn.
type Comparison struct {
	Params Params               `json:"params"`
	Rounds int                  `json:"rounds"`
	Stacks []string             `json:"stacks"`
	Runs   map[string][]float64 `json:"runs"`   // primary figure of each round, per stack
	Median map[string]float64   `json:"median"` // median of the rounds, per stack
	Unit   string               `json:"unit"`
}

// Compare runs p on each of stacks in turn, alternating, for rounds
// rounds, against the server at ctlAddr. progress, if set, sees every run.
// A stack that says it cannot run here (Checker) fails it before the first
// round.
func Compare(ctx context.Context, ctlAddr string, p Params, stacks []string, rounds int, progress func(round int, r *Result)) (*Comparison, error) {
	if err := p.Normalize(); err != nil {
		return nil, err
	}
	for _, s := range stacks {
		st, err := Lookup(s)
		if err != nil {
			return nil, err
		}
		if ch, ok := st.(Checker); ok {
			if err := ch.Check(&p.Config); err != nil {
				return nil, fmt.Errorf("%s: %w", s, err)
			}
		}
	}
	c := &Comparison{Params: p, Rounds: rounds, Stacks: stacks, Runs: map[string][]float64{}, Median: map[string]float64{}, Unit: primaryUnit(&p)}
	for round := range rounds {
		for _, s := range stacks {
			q := p
			q.Stack = s
			r, err := Run(ctx, ctlAddr, q, RunOptions{})
			if err != nil {
				return c, fmt.Errorf("round %d, %s: %w", round+1, s, err)
			}
			c.Runs[s] = append(c.Runs[s], r.Primary())
			if progress != nil {
				progress(round, r)
			}
		}
	}
	for _, s := range stacks {
		c.Median[s] = Median(c.Runs[s])
	}
	return c, nil
}

// Median returns the median of v (the mean of the middle two for an even
// count), or 0 for none.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Ratio returns the median of stack a over that of stack b (0 if b's is 0).
func (c *Comparison) Ratio(a, b string) float64 {
	if c.Median[b] == 0 {
		return 0
	}
	return c.Median[a] / c.Median[b]
}

// WriteComparison writes the medians and, when usctp is among the stacks,
// the ratio of usctp to each other stack.
func WriteComparison(w io.Writer, c *Comparison) {
	fmt.Fprintf(w, "%s, %d rounds alternating, medians:\n", c.Params.Test, c.Rounds)
	fmt.Fprintf(w, "%-12s %14s   %s\n", "stack", c.Unit, "runs")
	for _, s := range c.Stacks {
		fmt.Fprintf(w, "%-12s %14.2f  ", s, c.Median[s])
		for _, v := range c.Runs[s] {
			fmt.Fprintf(w, " %.2f", v)
		}
		fmt.Fprintln(w)
	}
	if slices.Contains(c.Stacks, "usctp") {
		for _, s := range c.Stacks {
			if s != "usctp" {
				fmt.Fprintf(w, "usctp/%s = %.2f\n", s, c.Ratio("usctp", s))
			}
		}
	}
}
