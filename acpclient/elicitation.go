package acpclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Elicitation modes (ACP elicitation/create "mode").
const (
	ElicitForm = "form"
	ElicitURL  = "url"
)

// Elicitation actions (ACP CreateElicitationResponse "action").
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// Elicitation field types: the JSON Schema "type" of a property of the requested schema
// (ACP ElicitationPropertySchema). A single-select enum is a FieldString with Options; a
// multi-select is a FieldArray.
const (
	FieldString  = "string"
	FieldNumber  = "number"
	FieldInteger = "integer"
	FieldBoolean = "boolean"
	FieldArray   = "array"
)

// ElicitationOption is one choice of an enum or multi-select field: Value is what is sent,
// Title what a person reads (Title == Value for an untitled enum), Description the agent's
// explanation when it gave one (claude-agent-acp does, beyond the schema).
type ElicitationOption struct {
	Value, Title string
	Description  string
}

// ElicitationField is one property of a form elicitation's requested schema, in the agent's
// order (ACP ElicitationPropertySchema: string, number, integer, boolean, array).
type ElicitationField struct {
	// Name is the property's key: the key of the answer in the accepted content.
	Name string
	// Title and Description are the agent's labels ("" when absent).
	Title, Description string
	// Type is FieldString, FieldNumber, FieldInteger, FieldBoolean or FieldArray.
	Type string
	// Required: the property is listed in the schema's "required".
	Required bool
	// Options are the choices of an enum (FieldString) or multi-select (FieldArray); nil for a
	// free-text string.
	Options []ElicitationOption
	// Format is a string's format: "email", "uri", "date", "date-time", or "".
	Format string
	// MinLength and MaxLength bound a string's length in characters (nil: unbounded).
	MinLength, MaxLength *int
	// Pattern is a string's regular expression ("" none); PatternErr says why acpterm cannot
	// check it (JSON Schema patterns are ECMA-262; Go's RE2 lacks look-arounds and back
	// references), and then the value is not checked against it.
	Pattern    string
	PatternErr error
	// Minimum and Maximum bound a number or integer (nil: unbounded).
	Minimum, Maximum *float64
	// MinItems and MaxItems bound how many options of a multi-select may be chosen.
	MinItems, MaxItems *int
	// Default is the agent's default, typed like an answer (string, float64, int64, bool,
	// []string); nil when none.
	Default any
	// Sensitive: the field's name, title or description looks like a secret (password, token,
	// API key …): the UI masks it and nothing records its value.
	Sensitive bool

	re *regexp.Regexp
}

// Label is what a person reads for the field: its title, else its name.
func (f ElicitationField) Label() string {
	if f.Title != "" {
		return f.Title
	}
	return f.Name
}

// Elicitation is a parsed ACP elicitation/create request: a form to fill in (Mode ElicitForm,
// Fields) or a URL to visit (Mode ElicitURL, URL, ElicitationID).
type Elicitation struct {
	Mode string
	// Message is the agent's explanation of what it needs (plain text from the agent).
	Message string
	// Title and Description are the requested schema's own labels (form mode; may be "").
	Title, Description string
	// Fields are the schema's properties in the order the agent sent them.
	Fields []ElicitationField
	// URL is the address to visit (url mode), as the agent sent it.
	URL string
	// ElicitationID names a URL elicitation for the agent's later elicitation/complete.
	ElicitationID string
	// SessionID and ToolCallID are the scope the agent gave (ACP ElicitationSessionScope);
	// RequestScoped is set when it named a request instead (before any session exists).
	SessionID, ToolCallID string
	RequestScoped         bool
}

// Field returns the field called name.
func (e Elicitation) Field(name string) (ElicitationField, bool) {
	for _, f := range e.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return ElicitationField{}, false
}

// fieldByTitle returns the one field whose title is t (ignoring case).
func (e Elicitation) fieldByTitle(t string) (ElicitationField, bool) {
	var hit ElicitationField
	n := 0
	for _, f := range e.Fields {
		if f.Title != "" && strings.EqualFold(f.Title, t) {
			hit, n = f, n+1
		}
	}
	return hit, n == 1
}

// FieldError is a problem with one field of an answer (Field "" is about the whole answer).
type FieldError struct {
	Field, Msg string
}

// ValidationError lists every problem of a rejected answer, in field order.
type ValidationError struct {
	Errors []FieldError
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Errors))
	for i, fe := range e.Errors {
		if fe.Field == "" {
			parts[i] = fe.Msg
		} else {
			parts[i] = fe.Field + ": " + fe.Msg
		}
	}
	return "invalid answer: " + strings.Join(parts, "; ")
}

// For returns the message for field name ("" when it has none).
func (e *ValidationError) For(name string) string {
	for _, fe := range e.Errors {
		if fe.Field == name {
			return fe.Msg
		}
	}
	return ""
}

// sensitiveRe matches names and labels of fields whose values must not be shown or recorded.
var sensitiveRe = regexp.MustCompile(`(?i)pass(word|wd|phrase)?|secret|token|api[-_ ]?key|credential|private[-_ ]?key|\bpin\b|\botp\b|2fa|mfa`)

// wire shapes of the elicitation/create params (decoded here, not by the SDK, to keep the
// properties' order and the session scope; the SDK's form type drops both).
type elicitParams struct {
	Mode            string          `json:"mode"`
	Message         string          `json:"message"`
	SessionID       string          `json:"sessionId"`
	ToolCallID      *string         `json:"toolCallId"`
	RequestID       json.RawMessage `json:"requestId"`
	URL             string          `json:"url"`
	ElicitationID   string          `json:"elicitationId"`
	RequestedSchema *struct {
		Type        string          `json:"type"`
		Title       *string         `json:"title"`
		Description *string         `json:"description"`
		Properties  json.RawMessage `json:"properties"`
		Required    []string        `json:"required"`
	} `json:"requestedSchema"`
}

type propSchema struct {
	Type        string            `json:"type"`
	Title       *string           `json:"title"`
	Description *string           `json:"description"`
	Default     json.RawMessage   `json:"default"`
	Enum        []string          `json:"enum"`
	OneOf       []enumOption      `json:"oneOf"`
	Format      *string           `json:"format"`
	MinLength   *int              `json:"minLength"`
	MaxLength   *int              `json:"maxLength"`
	Pattern     *string           `json:"pattern"`
	Minimum     *float64          `json:"minimum"`
	Maximum     *float64          `json:"maximum"`
	MinItems    *int              `json:"minItems"`
	MaxItems    *int              `json:"maxItems"`
	Items       *multiSelectItems `json:"items"`
}

type enumOption struct {
	Const       string `json:"const"`
	Title       string `json:"title"`
	Description string `json:"description"`
}

type multiSelectItems struct {
	Type  string       `json:"type"`
	Enum  []string     `json:"enum"`
	AnyOf []enumOption `json:"anyOf"`
}

// maxElicitFields bounds the fields of one form (a larger schema is refused as malformed).
const maxElicitFields = 100

// ParseElicitation decodes the params of an ACP elicitation/create request. Errors name the
// problem: an unknown mode, a form without requestedSchema, a property whose type is not one of
// string/number/integer/boolean/array, a multi-select without items, a default that does not fit
// its field, a URL elicitation without url or elicitationId.
func ParseElicitation(params json.RawMessage) (Elicitation, error) {
	var p elicitParams
	if err := json.Unmarshal(params, &p); err != nil {
		return Elicitation{}, fmt.Errorf("elicitation/create: %v", err)
	}
	e := Elicitation{Mode: p.Mode, Message: p.Message, SessionID: p.SessionID, URL: p.URL, ElicitationID: p.ElicitationID,
		RequestScoped: p.SessionID == "" && len(p.RequestID) > 0}
	if p.ToolCallID != nil {
		e.ToolCallID = *p.ToolCallID
	}
	switch p.Mode {
	case ElicitURL:
		if p.URL == "" || p.ElicitationID == "" {
			return e, errors.New("elicitation/create: url mode needs url and elicitationId")
		}
		return e, nil
	case ElicitForm:
	default:
		return e, fmt.Errorf("elicitation/create: unknown mode %q (acpterm supports form and url)", p.Mode)
	}
	if p.RequestedSchema == nil {
		return e, errors.New("elicitation/create: form mode needs requestedSchema")
	}
	s := p.RequestedSchema
	if s.Type != "" && s.Type != "object" {
		return e, fmt.Errorf("elicitation/create: requestedSchema.type is %q, not \"object\"", s.Type)
	}
	e.Title, e.Description = deref(s.Title), deref(s.Description)
	names, raws, err := orderedObject(s.Properties)
	if err != nil {
		return e, fmt.Errorf("elicitation/create: requestedSchema.properties: %v", err)
	}
	if len(names) > maxElicitFields {
		return e, fmt.Errorf("elicitation/create: %d fields (at most %d)", len(names), maxElicitFields)
	}
	for i, name := range names {
		f, err := parseField(name, raws[i], slices.Contains(s.Required, name))
		if err != nil {
			return e, fmt.Errorf("elicitation/create: field %q: %v", name, err)
		}
		e.Fields = append(e.Fields, f)
	}
	for _, r := range s.Required {
		if _, ok := e.Field(r); !ok {
			return e, fmt.Errorf("elicitation/create: required field %q is not among the properties", r)
		}
	}
	return e, nil
}

// orderedObject returns the keys of a JSON object in document order with their raw values.
func orderedObject(raw json.RawMessage) ([]string, []json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, errors.New("not an object")
	}
	var names []string
	var vals []json.RawMessage
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		if seen[k] {
			return nil, nil, fmt.Errorf("property %q given twice", k)
		}
		seen[k] = true
		names, vals = append(names, k), append(vals, v)
	}
	return names, vals, nil
}

func parseField(name string, raw json.RawMessage, required bool) (ElicitationField, error) {
	var ps propSchema
	if err := json.Unmarshal(raw, &ps); err != nil {
		return ElicitationField{}, err
	}
	f := ElicitationField{Name: name, Title: deref(ps.Title), Description: deref(ps.Description), Type: ps.Type, Required: required}
	f.Sensitive = sensitiveRe.MatchString(name) || sensitiveRe.MatchString(f.Title)
	switch ps.Type {
	case FieldString:
		f.Format, f.MinLength, f.MaxLength = deref(ps.Format), ps.MinLength, ps.MaxLength
		switch f.Format {
		case "", "email", "uri", "date", "date-time":
		default:
			return f, fmt.Errorf("unknown string format %q", f.Format)
		}
		if ps.Pattern != nil && *ps.Pattern != "" {
			f.Pattern = *ps.Pattern
			f.re, f.PatternErr = regexp.Compile(f.Pattern)
		}
		for _, v := range ps.Enum {
			f.Options = append(f.Options, ElicitationOption{Value: v, Title: v})
		}
		for _, o := range ps.OneOf {
			t := o.Title
			if t == "" {
				t = o.Const
			}
			f.Options = append(f.Options, ElicitationOption{Value: o.Const, Title: t, Description: o.Description})
		}
	case FieldNumber, FieldInteger:
		f.Minimum, f.Maximum = ps.Minimum, ps.Maximum
	case FieldBoolean:
	case FieldArray:
		if ps.Items == nil {
			return f, errors.New("a multi-select (type array) needs items")
		}
		for _, v := range ps.Items.Enum {
			f.Options = append(f.Options, ElicitationOption{Value: v, Title: v})
		}
		for _, o := range ps.Items.AnyOf {
			t := o.Title
			if t == "" {
				t = o.Const
			}
			f.Options = append(f.Options, ElicitationOption{Value: o.Const, Title: t, Description: o.Description})
		}
		if len(f.Options) == 0 {
			return f, errors.New("a multi-select offers no options")
		}
		f.MinItems, f.MaxItems = ps.MinItems, ps.MaxItems
	case "":
		return f, errors.New("no type")
	default:
		return f, fmt.Errorf("type %q is not one of string, number, integer, boolean, array", ps.Type)
	}
	if len(ps.Default) > 0 && string(ps.Default) != "null" {
		v, err := f.decodeDefault(ps.Default)
		if err != nil {
			return f, fmt.Errorf("default: %v", err)
		}
		if err := f.Check(v); err != nil {
			return f, fmt.Errorf("default %s: %v", strings.TrimSpace(string(ps.Default)), err)
		}
		f.Default = v
	}
	return f, nil
}

func (f ElicitationField) decodeDefault(raw json.RawMessage) (any, error) {
	switch f.Type {
	case FieldString:
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case FieldNumber:
		var n float64
		err := json.Unmarshal(raw, &n)
		return n, err
	case FieldInteger:
		var n float64
		if err := json.Unmarshal(raw, &n); err != nil {
			return nil, err
		}
		if n != math.Trunc(n) || math.Abs(n) > 1<<53 {
			return nil, fmt.Errorf("%v is not an integer", n)
		}
		return int64(n), nil
	case FieldBoolean:
		var b bool
		err := json.Unmarshal(raw, &b)
		return b, err
	default:
		var l []string
		err := json.Unmarshal(raw, &l)
		return l, err
	}
}

// optionNames lists the titles of the options for messages: "Red, Blue".
func (f ElicitationField) optionNames() string {
	t := make([]string, len(f.Options))
	for i, o := range f.Options {
		t[i] = o.Title
		if o.Title != o.Value {
			t[i] += " (" + o.Value + ")"
		}
	}
	return strings.Join(t, ", ")
}

// matchOption finds the option whose value or title is s (values exactly, then titles and
// values ignoring case).
func (f ElicitationField) matchOption(s string) (string, bool) {
	for _, o := range f.Options {
		if o.Value == s {
			return o.Value, true
		}
	}
	for _, o := range f.Options {
		if strings.EqualFold(o.Title, s) || strings.EqualFold(o.Value, s) {
			return o.Value, true
		}
	}
	return "", false
}

// ParseText turns what a person typed (or a --answer value) into the field's typed value:
// the text itself for a string, a number, an integer, true/false (also yes/no, y/n, on/off,
// 1/0) for a boolean, the option's value for an enum (its value or title, any case), and for a
// multi-select the comma-separated options. It then checks the value (Check). Errors say what
// was expected, e.g. `not a number: "abc"`.
func (f ElicitationField) ParseText(s string) (any, error) {
	var v any
	switch f.Type {
	case FieldString:
		if len(f.Options) > 0 {
			o, ok := f.matchOption(strings.TrimSpace(s))
			if !ok {
				return nil, fmt.Errorf("%q is not one of: %s", s, f.optionNames())
			}
			v = o
		} else {
			v = s
		}
	case FieldNumber:
		n, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
			return nil, fmt.Errorf("not a number: %q", s)
		}
		v = n
	case FieldInteger:
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("not a whole number: %q", s)
		}
		v = n
	case FieldBoolean:
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true", "yes", "y", "on", "1":
			v = true
		case "false", "no", "n", "off", "0":
			v = false
		default:
			return nil, fmt.Errorf("not true or false: %q", s)
		}
	case FieldArray:
		list := []string{}
		for _, part := range strings.Split(s, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			o, ok := f.matchOption(part)
			if !ok {
				return nil, fmt.Errorf("%q is not one of: %s", part, f.optionNames())
			}
			if !slices.Contains(list, o) {
				list = append(list, o)
			}
		}
		v = list
	default:
		return nil, fmt.Errorf("unsupported type %q", f.Type)
	}
	if err := f.Check(v); err != nil {
		return nil, err
	}
	return v, nil
}

// Check validates a typed value (as ParseText returns it, or a JSON-decoded one) against the
// field's constraints: type, enum membership, length, pattern, format, bounds, item counts.
func (f ElicitationField) Check(v any) error {
	switch f.Type {
	case FieldString:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("must be text, not %T", v)
		}
		if len(f.Options) > 0 {
			for _, o := range f.Options {
				if o.Value == s {
					return nil
				}
			}
			return fmt.Errorf("%q is not one of: %s", s, f.optionNames())
		}
		n := utf8.RuneCountInString(s)
		if f.MinLength != nil && n < *f.MinLength {
			return fmt.Errorf("at least %d characters (has %d)", *f.MinLength, n)
		}
		if f.MaxLength != nil && n > *f.MaxLength {
			return fmt.Errorf("at most %d characters (has %d)", *f.MaxLength, n)
		}
		if f.re != nil && !f.re.MatchString(s) {
			return fmt.Errorf("does not match the pattern %s", f.Pattern)
		}
		return checkFormat(f.Format, s)
	case FieldNumber, FieldInteger:
		var n float64
		switch x := v.(type) {
		case float64:
			n = x
		case int64:
			n = float64(x)
		case int:
			n = float64(x)
		default:
			return fmt.Errorf("must be a number, not %T", v)
		}
		if f.Type == FieldInteger && n != math.Trunc(n) {
			return fmt.Errorf("must be a whole number, not %v", n)
		}
		if f.Minimum != nil && n < *f.Minimum {
			return fmt.Errorf("must be at least %s", fmtNum(*f.Minimum))
		}
		if f.Maximum != nil && n > *f.Maximum {
			return fmt.Errorf("must be at most %s", fmtNum(*f.Maximum))
		}
		return nil
	case FieldBoolean:
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("must be true or false, not %T", v)
		}
		return nil
	case FieldArray:
		var list []string
		switch x := v.(type) {
		case []string:
			list = x
		case []any:
			for _, it := range x {
				s, ok := it.(string)
				if !ok {
					return fmt.Errorf("items must be text, not %T", it)
				}
				list = append(list, s)
			}
		default:
			return fmt.Errorf("must be a list of options, not %T", v)
		}
		for _, s := range list {
			if !slices.ContainsFunc(f.Options, func(o ElicitationOption) bool { return o.Value == s }) {
				return fmt.Errorf("%q is not one of: %s", s, f.optionNames())
			}
		}
		if f.MinItems != nil && len(list) < *f.MinItems {
			return fmt.Errorf("choose at least %d (chosen %d)", *f.MinItems, len(list))
		}
		if f.MaxItems != nil && len(list) > *f.MaxItems {
			return fmt.Errorf("choose at most %d (chosen %d)", *f.MaxItems, len(list))
		}
		return nil
	}
	return fmt.Errorf("unsupported type %q", f.Type)
}

func fmtNum(n float64) string { return strconv.FormatFloat(n, 'f', -1, 64) }

func checkFormat(format, s string) error {
	switch format {
	case "email":
		a, err := mail.ParseAddress(s)
		if err != nil || a.Address != s || !strings.Contains(s[strings.LastIndexByte(s, '@')+1:], ".") {
			return fmt.Errorf("not an email address: %q", s)
		}
	case "uri":
		u, err := url.Parse(s)
		if err != nil || u.Scheme == "" || (u.Host == "" && u.Opaque == "" && u.Path == "") {
			return fmt.Errorf("not an absolute URI: %q", s)
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return fmt.Errorf("not a date (YYYY-MM-DD): %q", s)
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return fmt.Errorf("not a date-time (RFC 3339, e.g. 2026-01-02T15:04:05Z): %q", s)
		}
	}
	return nil
}

// Validate checks a whole answer: every required field present, every present field valid, no
// field the schema does not have. It returns nil or a *ValidationError listing every problem in
// field order.
func (e Elicitation) Validate(content map[string]any) error {
	var errs []FieldError
	for _, f := range e.Fields {
		v, ok := content[f.Name]
		if !ok || v == nil {
			if f.Required {
				errs = append(errs, FieldError{f.Name, "required"})
			}
			continue
		}
		if err := f.Check(v); err != nil {
			errs = append(errs, FieldError{f.Name, err.Error()})
		}
	}
	var extra []string
	for k := range content {
		if _, ok := e.Field(k); !ok {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	for _, k := range extra {
		errs = append(errs, FieldError{"", fmt.Sprintf("the form has no field %q", k)})
	}
	if len(errs) > 0 {
		return &ValidationError{Errors: errs}
	}
	return nil
}

// AnswersContent builds the content of an accepted form from KEY=VALUE answers (acpterm
// --answer): each value is parsed by its field (ParseText; a multi-select's answers given
// several times add up), fields without an answer take their default, and the result is
// validated. Keys the form does not have are ignored (an answer may be meant for another
// question). KEY is the field's name, or else its title (any case: claude-agent-acp names its
// fields question_0 …, titled by the question's header). Errors (a *ValidationError) name the
// field and the --answer that is wrong or missing.
func (e Elicitation) AnswersContent(answers []string) (map[string]any, error) {
	content := map[string]any{}
	var errs []FieldError
	for _, a := range answers {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			errs = append(errs, FieldError{"", fmt.Sprintf("--answer %q is not KEY=VALUE", a)})
			continue
		}
		f, ok := e.Field(k)
		if !ok {
			if f, ok = e.fieldByTitle(k); !ok {
				continue
			}
			k = f.Name
		}
		val, err := f.ParseText(v)
		if err != nil {
			shown := v
			if f.Sensitive {
				shown = "…"
			}
			errs = append(errs, FieldError{f.Name, fmt.Sprintf("--answer %s=%s: %v", k, shown, err)})
			continue
		}
		if l, ok := val.([]string); ok {
			if prev, ok := content[k].([]string); ok {
				for _, s := range l {
					if !slices.Contains(prev, s) {
						prev = append(prev, s)
					}
				}
				val = prev
				if err := f.Check(val); err != nil {
					errs = append(errs, FieldError{f.Name, fmt.Sprintf("--answer %s: %v", k, err)})
					continue
				}
			}
		}
		content[k] = val
	}
	for _, f := range e.Fields {
		if _, ok := content[f.Name]; !ok && f.Default != nil {
			content[f.Name] = f.Default
		}
	}
	if len(errs) == 0 {
		if err := e.Validate(content); err != nil {
			var ve *ValidationError
			errors.As(err, &ve)
			for i, fe := range ve.Errors {
				if fe.Msg == "required" {
					ve.Errors[i].Msg = fmt.Sprintf("required: give --answer %s=VALUE", fe.Field)
				}
			}
			return nil, ve
		}
		return content, nil
	}
	return nil, &ValidationError{Errors: errs}
}
