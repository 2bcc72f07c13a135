package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutputSchemaPropertiesAreObjects checks that every top-level property of every tool's
// outputSchema is written as a schema object, never the boolean schema true, which the
// TypeScript SDK's client refuses (and with it the whole tool list).
func TestOutputSchemaPropertiesAreObjects(t *testing.T) {
	for name, tl := range tools {
		b, err := json.Marshal(outputSchemaOf(tl.method))
		require.NoError(t, err)
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		require.NoError(t, json.Unmarshal(b, &s))
		for prop, raw := range s.Properties {
			assert.Equal(t, byte('{'), raw[0], "%s: property %s is %s", name, prop, raw)
		}
	}
}
