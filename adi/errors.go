package adi

import (
	"errors"
	"fmt"

	"github.com/adi-bridge/adi/internal/errkind"
)

// ErrNotFound marks every error about a function, fid or line that the recording does not
// contain. It is the kind errkind.NotFound; callers test it with errors.Is.
var ErrNotFound error = errkind.NotFound

// ErrBadInput marks every error about input that cannot be understood or used as typed (a
// malformed reference or command, an ambiguous name, a missing argument). It is the kind
// errkind.BadInput; callers test it with errors.Is.
var ErrBadInput error = errkind.BadInput

// kindError is an error of a kind (ErrNotFound, ErrBadInput) whose text is only its message: the
// kind is for errors.Is, not for the reader.
type kindError struct {
	msg  string
	kind error
	wrap error
}

func (e *kindError) Error() string        { return e.msg }
func (e *kindError) Is(target error) bool { return target == e.kind }
func (e *kindError) Unwrap() error        { return e.wrap }

// Errorf formats an error of kind `kind` (a sentinel error: errors.Is(err, kind) holds) whose text
// is only the message, without the sentinel's. A %w verb wraps its operand as fmt.Errorf does.
func Errorf(kind error, format string, a ...any) error { return kinded(kind, format, a...) }

// NotFoundf formats an error of kind ErrNotFound. A %w verb wraps its operand as fmt.Errorf does.
func NotFoundf(format string, a ...any) error { return kinded(ErrNotFound, format, a...) }

// BadInputf formats an error of kind ErrBadInput. A %w verb wraps its operand as fmt.Errorf does.
func BadInputf(format string, a ...any) error { return kinded(ErrBadInput, format, a...) }

func kinded(kind error, format string, a ...any) error {
	err := fmt.Errorf(format, a...)
	return &kindError{msg: err.Error(), kind: kind, wrap: errors.Unwrap(err)}
}
