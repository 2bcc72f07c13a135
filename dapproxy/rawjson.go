package dapproxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// The proxy changes a forwarded message by splicing bytes: it finds the member it rewrites (seq,
// request_seq, a launch argument, a connect address) and replaces that member's value, so every
// other byte the peer sent (field order, unknown fields, formatting) passes unchanged. The
// scanner below only finds value boundaries; encoding/json validated the message already.

var errNotObject = errors.New("not a JSON object")

// member is one member of a JSON object: the offsets of its key (with quotes) and of its value.
type member struct {
	key                  string
	keyStart, valueStart int
	valueEnd             int
}

// members lists the members of the JSON object raw, in order.
func members(raw []byte) ([]member, error) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, errNotObject
	}
	i = skipSpace(raw, i+1)
	var out []member
	if i < len(raw) && raw[i] == '}' {
		return out, nil
	}
	for {
		if i >= len(raw) || raw[i] != '"' {
			return nil, fmt.Errorf("%w: expected a key at offset %d", errNotObject, i)
		}
		ks := i
		ke, err := skipString(raw, i)
		if err != nil {
			return nil, err
		}
		key, err := decodeKey(raw[ks:ke])
		if err != nil {
			return nil, err
		}
		i = skipSpace(raw, ke)
		if i >= len(raw) || raw[i] != ':' {
			return nil, fmt.Errorf("%w: expected ':' at offset %d", errNotObject, i)
		}
		vs := skipSpace(raw, i+1)
		ve, err := skipValue(raw, vs)
		if err != nil {
			return nil, err
		}
		out = append(out, member{key: key, keyStart: ks, valueStart: vs, valueEnd: ve})
		i = skipSpace(raw, ve)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
			continue
		}
		if i < len(raw) && raw[i] == '}' {
			return out, nil
		}
		return nil, fmt.Errorf("%w: expected ',' or '}' at offset %d", errNotObject, i)
	}
}

func decodeKey(quoted []byte) (string, error) {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return string(quoted[1 : len(quoted)-1]), nil
	}
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		return "", fmt.Errorf("%w: bad key: %v", errNotObject, err)
	}
	return s, nil
}

// find returns the last member named key (encoding/json also takes the last of duplicates).
func find(ms []member, key string) (member, bool) {
	for k := len(ms) - 1; k >= 0; k-- {
		if ms[k].key == key {
			return ms[k], true
		}
	}
	return member{}, false
}

// getMember returns the raw value of key in the object raw, or nil when it is absent.
func getMember(raw []byte, key string) ([]byte, error) {
	ms, err := members(raw)
	if err != nil {
		return nil, err
	}
	if m, ok := find(ms, key); ok {
		return raw[m.valueStart:m.valueEnd], nil
	}
	return nil, nil
}

// setMember returns a copy of the object raw with the value of key replaced by val (a JSON
// value), or with the member added at the end when it is absent.
func setMember(raw []byte, key string, val []byte) ([]byte, error) {
	ms, err := members(raw)
	if err != nil {
		return nil, err
	}
	if m, ok := find(ms, key); ok {
		out := make([]byte, 0, len(raw)-(m.valueEnd-m.valueStart)+len(val))
		out = append(out, raw[:m.valueStart]...)
		out = append(out, val...)
		return append(out, raw[m.valueEnd:]...), nil
	}
	end := bytes.LastIndexByte(raw, '}')
	kb, _ := json.Marshal(key)
	out := make([]byte, 0, len(raw)+len(kb)+len(val)+2)
	out = append(out, raw[:end]...)
	if len(ms) > 0 {
		out = append(out, ',')
	}
	out = append(out, kb...)
	out = append(out, ':')
	out = append(out, val...)
	return append(out, raw[end:]...), nil
}

// deleteMember returns a copy of the object raw without key (every occurrence); raw itself when
// key is absent.
func deleteMember(raw []byte, key string) ([]byte, error) {
	for {
		ms, err := members(raw)
		if err != nil {
			return nil, err
		}
		k := -1
		for i, m := range ms {
			if m.key == key {
				k = i
				break
			}
		}
		if k < 0 {
			return raw, nil
		}
		start, end := ms[k].keyStart, ms[k].valueEnd
		switch {
		case k+1 < len(ms): // remove up to the next key
			end = ms[k+1].keyStart
		case k > 0: // the last member: remove from the end of the previous one
			start = ms[k-1].valueEnd
		}
		out := make([]byte, 0, len(raw)-(end-start))
		out = append(out, raw[:start]...)
		raw = append(out, raw[end:]...)
	}
}

// setPath sets the value at a path of keys inside nested objects (every object on the way must
// exist).
func setPath(raw []byte, path []string, val []byte) ([]byte, error) {
	if len(path) == 1 {
		return setMember(raw, path[0], val)
	}
	inner, err := getMember(raw, path[0])
	if err != nil {
		return nil, err
	}
	if inner == nil {
		return nil, fmt.Errorf("no %q member", path[0])
	}
	changed, err := setPath(inner, path[1:], val)
	if err != nil {
		return nil, fmt.Errorf("%s.%w", path[0], err)
	}
	return setMember(raw, path[0], changed)
}

// setInt sets the integer member key, returning raw itself when it already has that value.
func setInt(raw []byte, key string, n int) ([]byte, error) {
	cur, err := getMember(raw, key)
	if err != nil {
		return nil, err
	}
	if cur != nil && string(cur) == strconv.Itoa(n) {
		return raw, nil
	}
	return setMember(raw, key, strconv.AppendInt(nil, int64(n), 10))
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the offset after the string starting at b[i] (a quote).
func skipString(b []byte, i int) (int, error) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("%w: unterminated string at offset %d", errNotObject, i)
}

// skipValue returns the offset after the JSON value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, fmt.Errorf("%w: missing value", errNotObject)
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e, err := skipString(b, j)
				if err != nil {
					return 0, err
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, fmt.Errorf("%w: unterminated value at offset %d", errNotObject, i)
	default: // number, true, false, null
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
			j++
		}
		if j == i {
			return 0, fmt.Errorf("%w: missing value at offset %d", errNotObject, i)
		}
		return j, nil
	}
}
