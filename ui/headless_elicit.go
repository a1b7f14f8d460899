package ui

import (
	"errors"
	"fmt"
	"strings"

	"github.com/acpterm/acpterm/acpclient"
)

// headlessElicitBy is the By of elicitation answers the headless renderer gives: from the
// --answer flags, or a decline because nobody can answer.
const (
	headlessElicitBy  = "answer-flag"
	headlessDeclineBy = "headless"
)

// ErrBadAnswer is wrapped by RunHeadless's error when an --answer did not fit the agent's
// question (the question was declined; the exit status is 2).
var ErrBadAnswer = errors.New("an --answer does not fit the agent's question")

// elicit answers an elicitation at once: a form from the --answer flags (Answers) when any is
// given, otherwise (and for URL elicitations, which need a browser) a decline. An answer that
// does not fit the form is printed as an error and the form is declined.
func (h *headless) elicit(e acpclient.ElicitationAsked) {
	el := e.Elicitation
	if el.Mode == acpclient.ElicitURL {
		h.line("[elicitation] url %s: %s", sanitizeLine(el.URL), sanitizeLine(el.Message))
		h.answerElicit(e.ID, acpclient.ElicitationAnswer{Action: acpclient.ElicitDecline, By: headlessDeclineBy})
		return
	}
	names := make([]string, len(el.Fields))
	for i, f := range el.Fields {
		names[i] = sanitizeLine(f.Name)
		if f.Required {
			names[i] += "*"
		}
	}
	h.line("[elicitation] form %q: %s", sanitizeLine(el.Message), strings.Join(names, ", "))
	if len(h.o.Answers) == 0 {
		h.answerElicit(e.ID, acpclient.ElicitationAnswer{Action: acpclient.ElicitDecline, By: headlessDeclineBy})
		return
	}
	content, err := el.AnswersContent(h.o.Answers)
	if err != nil {
		h.line("[error] %s", sanitizeLine(err.Error()))
		if h.badAnswer == nil {
			h.badAnswer = fmt.Errorf("%w: %v", ErrBadAnswer, err)
		}
		h.answerElicit(e.ID, acpclient.ElicitationAnswer{Action: acpclient.ElicitDecline, By: headlessElicitBy})
		return
	}
	h.answerElicit(e.ID, acpclient.ElicitationAnswer{Action: acpclient.ElicitAccept, Content: content, By: headlessElicitBy})
}

func (h *headless) answerElicit(id string, a acpclient.ElicitationAnswer) {
	if err := h.o.Client.AnswerElicitation(id, a); err != nil {
		// AnswersContent validated the content already; an error here is the client's (the
		// question was withdrawn meanwhile).
		h.line("[error] elicitation answer: %s", sanitizeLine(err.Error()))
	}
}

// elicitResolved prints how an elicitation ended.
func (h *headless) elicitResolved(e acpclient.ElicitationResolved) {
	why := e.By
	switch e.By {
	case headlessElicitBy:
		why = "--answer"
	case headlessDeclineBy:
		why = "headless: no --answer"
	}
	fields := ""
	if len(e.Fields) > 0 {
		fields = ": " + sanitizeLine(strings.Join(e.Fields, ", "))
	}
	h.line("[elicitation] → %s%s (%s)", e.Action, fields, why)
}
