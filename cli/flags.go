package cli

import (
	"fmt"
	"strings"

	"github.com/adi-bridge/adi/adi"
)

// FlagName writes a flag the way it is typed: "-t" for one letter, "--full-watch" otherwise.
func FlagName(name string) string {
	name = strings.TrimLeft(name, "-")
	if len([]rune(name)) == 1 {
		return "-" + name
	}
	return "--" + name
}

// Closest returns the known word nearest to word ("" when none is near): of the words that
// contain it, are contained in it or are within a small edit distance (adi.Closest), the one
// fewest edits away. A one-letter word gets no suggestion: any other letter is as near.
func Closest(word string, known []string) string {
	if len([]rune(word)) < 2 {
		return ""
	}
	best, dist := "", -1
	for _, c := range adi.Closest(word, known) {
		if d := adi.EditDistance(word, c); dist < 0 || d < dist {
			best, dist = c, d
		}
	}
	return best
}

// UnknownFlag is the one line for a flag the command does not take, naming the closest flag it
// does take (known are flag names without dashes).
func UnknownFlag(command, flag string, known []string) string {
	name := strings.TrimLeft(flag, "-")
	if k, _, ok := strings.Cut(name, "="); ok {
		name = k
	}
	var long []string
	for _, k := range known {
		if len([]rune(k)) > 1 || len([]rune(name)) == 1 {
			long = append(long, k)
		}
	}
	hint := ""
	if c := Closest(name, long); c != "" {
		hint = "; did you mean " + FlagName(c) + "?"
	}
	return fmt.Sprintf("adi: unknown flag %s for %s%s (adi %s -h lists the flags)", FlagName(name), command, hint, command)
}

// UnknownCommand is the one line for a command adi does not have, naming the closest one.
func UnknownCommand(name string, known []string) string {
	folded := strings.ReplaceAll(strings.ToLower(name), "_", "-")
	hint := ""
	if c := Closest(folded, known); c != "" {
		hint = "; did you mean " + c + "?"
	}
	return fmt.Sprintf("adi: unknown command %q%s (adi help lists the commands)", name, hint)
}
