package live

import (
	"strings"
)

// Markers travel in the program's own output pipes, so they arrive in order with what the program
// wrote: "\x00adi-live-TOKEN KIND VALUE\x00". The launcher writes "exit STATUS" to stderr when the
// program finished; adi writes "sync N" into both pipes at a stop (outputSync) and waits for them
// to come back, so an answer holds every byte the program wrote before it stopped. adi takes
// markers out of the output before anyone sees it.

// marker is one marker found in the output.
type marker struct {
	kind, value string
}

// markerScanner finds the markers of one token in one stream. Output arrives in pieces, so a piece
// that ends with the start of a marker is held back until the next one.
type markerScanner struct {
	prefix string
	held   string
}

func newMarkerScanner(token string) *markerScanner {
	return &markerScanner{prefix: "\x00adi-live-" + token + " "}
}

// markerText is the marker of kind and value for token.
func markerText(token, kind, value string) string {
	return "\x00adi-live-" + token + " " + kind + " " + value + "\x00"
}

// scan returns text without the markers, and the markers it held.
func (m *markerScanner) scan(text string) (string, []marker) {
	text = m.held + text
	m.held = ""
	var out strings.Builder
	var found []marker
	for {
		i := strings.Index(text, m.prefix)
		if i < 0 {
			break
		}
		rest := text[i+len(m.prefix):]
		j := strings.IndexByte(rest, 0)
		if j < 0 {
			m.held = text[i:]
			out.WriteString(text[:i])
			return out.String(), found
		}
		kind, value, _ := strings.Cut(rest[:j], " ")
		found = append(found, marker{kind: kind, value: value})
		out.WriteString(text[:i])
		text = rest[j+1:]
	}
	// Hold back a tail that could be the start of a marker.
	for k := min(len(m.prefix)-1, len(text)); k > 0; k-- {
		if strings.HasSuffix(text, m.prefix[:k]) {
			m.held = text[len(text)-k:]
			text = text[:len(text)-k]
			break
		}
	}
	out.WriteString(text)
	return out.String(), found
}
