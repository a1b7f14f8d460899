package acpclient

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

const testForm = `{"sessionId":"s","mode":"form","message":"Set up","requestedSchema":{"type":"object","title":"T","properties":{
	"name":{"type":"string","title":"Project name","minLength":2,"maxLength":5,"pattern":"^[a-z]+$"},
	"email":{"type":"string","format":"email"},
	"n":{"type":"integer","minimum":1,"maximum":5,"default":2},
	"ratio":{"type":"number","minimum":0,"maximum":1},
	"color":{"type":"string","oneOf":[{"const":"red","title":"Red"},{"const":"blue","title":"Blue"}],"default":"blue"},
	"size":{"type":"string","enum":["S","M"]},
	"tags":{"type":"array","items":{"type":"string","enum":["a","b","c"]},"minItems":1,"maxItems":2},
	"ok":{"type":"boolean","default":false},
	"password":{"type":"string"}},
	"required":["name","tags"]}}`

func mustParse(t *testing.T, s string) Elicitation {
	t.Helper()
	e, err := ParseElicitation(json.RawMessage(s))
	if err != nil {
		t.Fatalf("ParseElicitation: %v", err)
	}
	return e
}

func TestParseElicitationKeepsOrderAndConstraints(t *testing.T) {
	e := mustParse(t, testForm)
	var names []string
	for _, f := range e.Fields {
		names = append(names, f.Name)
	}
	if want := []string{"name", "email", "n", "ratio", "color", "size", "tags", "ok", "password"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("field order = %v, want %v", names, want)
	}
	if e.Mode != ElicitForm || e.Message != "Set up" || e.Title != "T" || e.SessionID != "s" {
		t.Errorf("elicitation = %+v", e)
	}
	name, _ := e.Field("name")
	if !name.Required || *name.MinLength != 2 || *name.MaxLength != 5 || name.Pattern != "^[a-z]+$" || name.Label() != "Project name" {
		t.Errorf("name = %+v", name)
	}
	n, _ := e.Field("n")
	if n.Default != int64(2) || *n.Minimum != 1 || *n.Maximum != 5 || n.Required {
		t.Errorf("n = %+v", n)
	}
	color, _ := e.Field("color")
	if want := []ElicitationOption{{Value: "red", Title: "Red"}, {Value: "blue", Title: "Blue"}}; !reflect.DeepEqual(color.Options, want) || color.Default != "blue" {
		t.Errorf("color = %+v", color)
	}
	tags, _ := e.Field("tags")
	if len(tags.Options) != 3 || *tags.MinItems != 1 || *tags.MaxItems != 2 {
		t.Errorf("tags = %+v", tags)
	}
	if pw, _ := e.Field("password"); !pw.Sensitive {
		t.Errorf("password field not sensitive")
	}
	if nm, _ := e.Field("name"); nm.Sensitive {
		t.Errorf("name field sensitive")
	}
}

func TestParseElicitationErrors(t *testing.T) {
	for _, tc := range []struct{ name, params, want string }{
		{"mode", `{"mode":"voice","message":"x"}`, `unknown mode "voice"`},
		{"no schema", `{"mode":"form","message":"x"}`, "needs requestedSchema"},
		{"object field", `{"mode":"form","message":"x","requestedSchema":{"properties":{"x":{"type":"object"}}}}`, `field "x": type "object" is not one of`},
		{"no type", `{"mode":"form","message":"x","requestedSchema":{"properties":{"x":{}}}}`, `field "x": no type`},
		{"array no items", `{"mode":"form","message":"x","requestedSchema":{"properties":{"x":{"type":"array"}}}}`, "needs items"},
		{"bad default", `{"mode":"form","message":"x","requestedSchema":{"properties":{"x":{"type":"integer","maximum":3,"default":9}}}}`, "default 9: must be at most 3"},
		{"required unknown", `{"mode":"form","message":"x","requestedSchema":{"properties":{},"required":["y"]}}`, `required field "y"`},
		{"url without id", `{"mode":"url","message":"x","url":"https://a"}`, "needs url and elicitationId"},
		{"format", `{"mode":"form","message":"x","requestedSchema":{"properties":{"x":{"type":"string","format":"ipv4"}}}}`, `unknown string format "ipv4"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseElicitation(json.RawMessage(tc.params))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestElicitationFieldParseText(t *testing.T) {
	e := mustParse(t, testForm)
	for _, tc := range []struct {
		field, text string
		want        any
		err         string
	}{
		{"name", "abc", "abc", ""},
		{"name", "a", nil, "at least 2 characters (has 1)"},
		{"name", "abcdef", nil, "at most 5 characters (has 6)"},
		{"name", "Abc", nil, "does not match the pattern ^[a-z]+$"},
		{"email", "ann@example.com", "ann@example.com", ""},
		{"email", "ann@", nil, `not an email address: "ann@"`},
		{"n", "3", int64(3), ""},
		{"n", "3.5", nil, `not a whole number: "3.5"`},
		{"n", "9", nil, "must be at most 5"},
		{"n", "0", nil, "must be at least 1"},
		{"ratio", "0.25", 0.25, ""},
		{"ratio", "x", nil, `not a number: "x"`},
		{"ratio", "1.5", nil, "must be at most 1"},
		{"color", "Red", "red", ""},
		{"color", "BLUE", "blue", ""},
		{"color", "green", nil, `"green" is not one of: Red (red), Blue (blue)`},
		{"size", "m", "M", ""},
		{"tags", "a, c", []string{"a", "c"}, ""},
		{"tags", "a,b,c", nil, "choose at most 2 (chosen 3)"},
		{"tags", "", nil, "choose at least 1 (chosen 0)"},
		{"tags", "d", nil, `"d" is not one of: a, b, c`},
		{"ok", "yes", true, ""},
		{"ok", "off", false, ""},
		{"ok", "maybe", nil, `not true or false: "maybe"`},
	} {
		t.Run(tc.field+"="+tc.text, func(t *testing.T) {
			f, _ := e.Field(tc.field)
			got, err := f.ParseText(tc.text)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("ParseText = %#v, %v; want %#v", got, err, tc.want)
			}
		})
	}
}

func TestElicitationValidate(t *testing.T) {
	e := mustParse(t, testForm)
	err := e.Validate(map[string]any{"email": "x", "n": int64(7), "zzz": 1})
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v", err)
	}
	want := []FieldError{{"name", "required"}, {"email", `not an email address: "x"`}, {"n", "must be at most 5"},
		{"tags", "required"}, {"", `the form has no field "zzz"`}}
	if !reflect.DeepEqual(ve.Errors, want) {
		t.Fatalf("errors = %+v\nwant %+v", ve.Errors, want)
	}
	if ve.For("n") != "must be at most 5" || ve.For("ratio") != "" {
		t.Errorf("For: %q %q", ve.For("n"), ve.For("ratio"))
	}
	// JSON-decoded values (float64 integers, []any lists) validate too.
	if err := e.Validate(map[string]any{"name": "ab", "tags": []any{"a"}, "n": float64(3)}); err != nil {
		t.Errorf("valid decoded answer: %v", err)
	}
}

func TestElicitationAnswersContent(t *testing.T) {
	e := mustParse(t, testForm)
	t.Run("defaults and repeat", func(t *testing.T) {
		got, err := e.AnswersContent([]string{"name=abc", "tags=a", "tags=b", "other=ignored"})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"name": "abc", "tags": []string{"a", "b"}, "n": int64(2), "color": "blue", "ok": false}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("content = %#v\nwant %#v", got, want)
		}
	})
	t.Run("bad value", func(t *testing.T) {
		_, err := e.AnswersContent([]string{"name=abc", "tags=a", "color=green"})
		if err == nil || err.Error() != `invalid answer: color: --answer color=green: "green" is not one of: Red (red), Blue (blue)` {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("missing required", func(t *testing.T) {
		_, err := e.AnswersContent([]string{"name=abc"})
		if err == nil || err.Error() != "invalid answer: tags: required: give --answer tags=VALUE" {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("secret not echoed", func(t *testing.T) {
		_, err := e.AnswersContent([]string{"name=abc", "tags=a", "password=hunter2", "n=x"})
		if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "n: --answer n=x") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("by title", func(t *testing.T) {
		got, err := e.AnswersContent([]string{"project NAME=abc", "tags=b"})
		if err != nil || got["name"] != "abc" {
			t.Fatalf("content = %#v, %v", got, err)
		}
	})
	t.Run("not key=value", func(t *testing.T) {
		_, err := e.AnswersContent([]string{"name"})
		if err == nil || !strings.Contains(err.Error(), `--answer "name" is not KEY=VALUE`) {
			t.Fatalf("err = %v", err)
		}
	})
}
