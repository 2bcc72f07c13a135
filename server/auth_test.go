package server

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckListen(t *testing.T) {
	for _, ok := range []string{"127.0.0.1:0", "localhost:8080", "[::1]:0", "127.0.0.2:9"} {
		assert.NoError(t, CheckListen(ok, false), ok)
	}
	for _, bad := range []string{"0.0.0.0:0", ":8080", "192.168.1.5:0", "example.com:80"} {
		err := CheckListen(bad, false)
		require.Error(t, err, bad)
		assert.Equal(t, "adi: --listen "+bad+" is not a loopback address, and whoever reaches it can run code as you; listen on 127.0.0.1, or pass --allow-remote if you mean it", err.Error())
		assert.NoError(t, CheckListen(bad, true), bad)
	}
	assert.Error(t, CheckListen("nonsense", true))
}

func TestGuard(t *testing.T) {
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4711}
	g := newGuard("secret-token", addr, false)
	req := func(host, origin, auth, query string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "http://"+host+"/api/rpc"+query, nil)
		r.Host = host
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		w := httptest.NewRecorder()
		if rf := g.check(r, true); rf != nil {
			refuse(w, rf)
		} else {
			w.WriteHeader(200)
		}
		return w
	}
	self := "127.0.0.1:4711"
	assert.Equal(t, 200, req(self, "", "Bearer secret-token", "").Code)
	assert.Equal(t, 200, req("localhost:4711", "http://localhost:4711", "Bearer secret-token", "").Code)
	assert.Equal(t, 200, req(self, "http://127.0.0.1:4711", "", "?token=secret-token").Code)

	w := req(self, "", "", "")
	assert.Equal(t, 401, w.Code)
	assert.JSONEq(t, `{"error":"adi: a token is required; send it as the header 'Authorization: Bearer TOKEN', the query ?token=TOKEN or the adi_token cookie (adi serve prints it)"}`, w.Body.String())
	w = req(self, "", "Bearer nope", "")
	assert.Equal(t, 401, w.Code)
	assert.JSONEq(t, `{"error":"adi: the token is wrong; use the one adi serve printed"}`, w.Body.String())
	w = req(self, "http://evil.example", "Bearer secret-token", "")
	assert.Equal(t, 403, w.Code)
	assert.JSONEq(t, `{"error":"adi: origin http://evil.example may not use this server; only pages served by http://127.0.0.1:4711 may"}`, w.Body.String())
	w = req("evil.example:4711", "", "Bearer secret-token", "")
	assert.Equal(t, 403, w.Code, "DNS rebinding: a foreign Host name")

	r := httptest.NewRequest("GET", "http://"+self+"/rpc", nil)
	r.AddCookie(&http.Cookie{Name: TokenCookie, Value: "secret-token"})
	assert.Nil(t, g.check(r, true))
}

// TestBearerSchemeIsCaseInsensitive reads the token of Authorization headers: the scheme's name
// is matched without regard to case (RFC 7235), other schemes and empty tokens carry none.
func TestBearerSchemeIsCaseInsensitive(t *testing.T) {
	for _, tc := range []struct {
		header, token string
		ok            bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer abc", "abc", true},
		{"BEARER abc", "abc", true},
		{"  Bearer   abc  ", "abc", true},
		{"Bearer", "", false},
		{"Bearer   ", "", false},
		{"Basic abc", "", false},
		{"Bearerabc", "", false},
		{"", "", false},
	} {
		token, ok := bearer(tc.header)
		assert.Equal(t, tc.token, token, "%q", tc.header)
		assert.Equal(t, tc.ok, ok, "%q", tc.header)
	}
}
