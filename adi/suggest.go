package adi

import (
	"path"
	"sort"
	"strings"
)

// maxSuggestions bounds the close names an error lists.
const maxSuggestions = 3

// nameForms are the forms of a function or module name compared with what an agent typed: the
// full name, its qualname and the last dotted part.
func nameForms(name string) []string {
	q := ShortName(name)
	_, last, _ := cutLast(q, '.')
	return []string{name, q, last}
}

// fileForms are the forms of a file path compared with what an agent typed.
func fileForms(p string) []string { return []string{p, path.Base(p)} }

// closestText is the "; closest: a, b" tail of a not-found error, or else the hint that nothing
// of that name ran as user code.
func closestText(query string, cands []string, forms func(string) []string) string {
	if c := closest(query, cands, forms); len(c) > 0 {
		return "; closest: " + strings.Join(c, ", ")
	}
	return " (nothing of it was called, or it is not user code)"
}

// Closest returns up to three of cands near query, nearest first (see closest), for suggestions
// outside the recording: commands and flags.
func Closest(query string, cands []string) []string {
	return closest(query, cands, func(s string) []string { return []string{s} })
}

// closest returns up to maxSuggestions candidates near query: those containing it (or contained
// in it) first, then those within a small edit distance, nearest first.
func closest(query string, cands []string, forms func(string) []string) []string {
	type scored struct {
		name string
		sub  bool
		dist int
	}
	q := strings.ToLower(query)
	limit := max(1, len([]rune(q))/3)
	var found []scored
	for _, c := range cands {
		s := scored{name: c, dist: -1}
		for _, form := range forms(c) {
			f := strings.ToLower(form)
			if len(q) >= 2 && len(f) >= 2 && (strings.Contains(f, q) || strings.Contains(q, f)) {
				s.sub = true
			}
			if d := EditDistance(q, f); s.dist < 0 || d < s.dist {
				s.dist = d
			}
		}
		if s.sub || s.dist <= limit {
			found = append(found, s)
		}
	}
	sort.Slice(found, func(i, j int) bool {
		a, b := found[i], found[j]
		if a.sub != b.sub {
			return a.sub
		}
		if a.dist != b.dist {
			return a.dist < b.dist
		}
		return a.name < b.name
	})
	out := make([]string, 0, maxSuggestions)
	for i := 0; i < len(found) && i < maxSuggestions; i++ {
		out = append(out, found[i].name)
	}
	return out
}

// EditDistance is the Levenshtein distance between a and b, counted in runes: how close a
// mistyped name is to a known one (the did-you-mean of every face).
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
