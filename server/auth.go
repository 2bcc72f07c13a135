package server

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// TokenCookie is the cookie the viewer page sets so the browser sends the token by itself.
const TokenCookie = "adi_token"

// NewToken returns a random token: 32 bytes, hex.
func NewToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("adi: cannot make a random token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// CheckListen refuses a listen address that is not loopback unless allowRemote: the API runs
// code as the user, so exposing it must be a deliberate choice.
func CheckListen(addr string, allowRemote bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("adi: --listen %q is not HOST:PORT (e.g. 127.0.0.1:0): %v", addr, err)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil && port != "" {
		return fmt.Errorf("adi: --listen %q: the port must be a number from 0 to 65535", addr)
	}
	if allowRemote || isLoopback(host) {
		return nil
	}
	return fmt.Errorf("adi: --listen %s is not a loopback address, and whoever reaches it can run code as you; listen on 127.0.0.1, or pass --allow-remote if you mean it", addr)
}

// LoopbackAddr reports whether a listen address HOST:PORT is on the loopback interface.
func LoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && isLoopback(host)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// guard checks where a request comes from and that it carries the token.
type guard struct {
	tokenSum    [32]byte
	allowRemote bool
	hosts       map[string]bool // Host values that name this server
	origins     map[string]bool // Origin values of this server's own pages
	self        string          // the origin to name in refusals
}

func newGuard(token string, addr *net.TCPAddr, allowRemote bool) *guard {
	g := &guard{tokenSum: sha256.Sum256([]byte(token)), allowRemote: allowRemote,
		hosts: map[string]bool{}, origins: map[string]bool{}}
	port := strconv.Itoa(addr.Port)
	names := []string{addr.String(), net.JoinHostPort("localhost", port)}
	if addr.IP.IsUnspecified() || addr.IP.IsLoopback() {
		names = append(names, net.JoinHostPort("127.0.0.1", port), net.JoinHostPort("::1", port))
	}
	for _, n := range names {
		g.hosts[n] = true
		g.origins["http://"+n] = true
	}
	g.self = "http://" + addr.String()
	return g
}

// refusal is an HTTP refusal: a status and a one-line JSON body.
type refusal struct {
	status int
	msg    string
}

// check returns nil when the request may proceed.
func (g *guard) check(r *http.Request, needToken bool) *refusal {
	if !g.allowRemote && !g.hosts[r.Host] {
		return &refusal{http.StatusForbidden, fmt.Sprintf("adi: host %q is not this server; use %s", r.Host, g.self)}
	}
	if origin := r.Header.Get("Origin"); origin != "" && !g.origins[origin] && !(g.allowRemote && origin == "http://"+r.Host) {
		return &refusal{http.StatusForbidden, fmt.Sprintf("adi: origin %s may not use this server; only pages served by %s may", origin, g.self)}
	}
	if !needToken {
		return nil
	}
	tok := requestToken(r)
	if tok == "" {
		return &refusal{http.StatusUnauthorized, "adi: a token is required; send it as the header 'Authorization: Bearer TOKEN', the query ?token=TOKEN or the adi_token cookie (adi serve prints it)"}
	}
	sum := sha256.Sum256([]byte(tok))
	if subtle.ConstantTimeCompare(sum[:], g.tokenSum[:]) != 1 {
		return &refusal{http.StatusUnauthorized, "adi: the token is wrong; use the one adi serve printed"}
	}
	return nil
}

// requestToken finds the token in the header, the query, or the cookie.
func requestToken(r *http.Request) string {
	if t, ok := bearer(r.Header.Get("Authorization")); ok {
		return t
	}
	if t := r.URL.Query().Get("token"); t != "" {
		return t
	}
	if c, err := r.Cookie(TokenCookie); err == nil {
		return c.Value
	}
	return ""
}

// refuse writes a refusal.
func refuse(w http.ResponseWriter, rf *refusal) {
	writeJSONError(w, rf.status, rf.msg)
}

func writeJSONError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]string{"error": msg})
	_, _ = w.Write(append(b, '\n'))
}

// bearer reads the token of an Authorization header in the Bearer scheme. The scheme's name is
// case-insensitive (RFC 7235, section 2.1): "Bearer T", "bearer T" and "BEARER T" all carry T.
func bearer(header string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}
