package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
)

// Messages of the stdout protocol (one JSON object per line). Field order is
// fixed by the structs so that lines are easy to read in test failure output.

type callMsg struct {
	Kind     string `json:"kind"` // "call"
	Informer string `json:"informer"`
	Call     string `json:"call"` // list | watch | watchlist
	RV       string `json:"rv"`
	// Continue is set only for the follow-up pages of a paginated list, so a
	// relist is a "list" call without "continue".
	Continue string `json:"continue,omitempty"`
}

type listedMsg struct {
	Kind     string `json:"kind"` // "listed"
	Informer string `json:"informer"`
	RV       string `json:"rv"`
	Items    int    `json:"items"`
}

type callErrorMsg struct {
	Kind     string `json:"kind"` // "call-error"
	Informer string `json:"informer"`
	Call     string `json:"call"`
	Status   int32  `json:"status"`
	Reason   string `json:"reason"`
	Message  string `json:"message"`
}

type eventMsg struct {
	Kind     string `json:"kind"` // "event"
	Informer string `json:"informer"`
	Type     string `json:"type"` // add | update | delete
	Name     string `json:"name"`
	RV       string `json:"rv"`
	// Initial is client-go's isInInitialList; only add callbacks carry it.
	Initial   *bool `json:"initial,omitempty"`
	Tombstone bool  `json:"tombstone,omitempty"`
}

type watchEndedMsg struct {
	Kind     string `json:"kind"` // "watch-ended"
	Informer string `json:"informer"`
	Events   int    `json:"events"` // events delivered on this stream, ERROR and BOOKMARK included
	// ClientStopped: the consumer (reflector or harness) called Stop before the
	// stream closed, i.e. the client, not the server, ended it.
	ClientStopped bool `json:"client_stopped"`
}

type watchErrorMsg struct {
	Kind     string `json:"kind"` // "watch-error"
	Informer string `json:"informer"`
	Code     int32  `json:"code"`
	Reason   string `json:"reason"`
	Message  string `json:"message"`
}

type dumpMsg struct {
	Kind     string            `json:"kind"` // "dump"
	Informer string            `json:"informer"`
	Objects  map[string]string `json:"objects"` // name -> resourceVersion
}

type httpMsg struct {
	Kind        string `json:"kind"`   // "http", only with --trace-http
	Client      string `json:"client"` // typed, dynamic or metadata
	Method      string `json:"method"`
	Path        string `json:"path"`
	Query       string `json:"query"`
	Accept      string `json:"accept"`
	Status      int    `json:"status"`          // 0 when the request failed without a response
	ContentType string `json:"contentType"`     // of the response
	Proto       string `json:"proto,omitempty"` // the response's protocol: HTTP/1.1, HTTP/2.0
}

type simpleMsg struct {
	Kind     string `json:"kind"`
	Informer string `json:"informer,omitempty"`
}

// emitter serialises protocol lines onto one writer. Every line is written
// with a single Write while holding the lock, so lines from concurrent
// informers never interleave; os.Stdout is unbuffered, so each line is
// visible to the reading test immediately.
type emitter struct {
	mu sync.Mutex
	w  io.Writer
}

func (e *emitter) emit(msg any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // Encode appends the '\n'
	enc.SetEscapeHTML(false)     // keep '&' in queries and messages readable
	if err := enc.Encode(msg); err != nil {
		panic(fmt.Sprintf("marshal %T: %v", msg, err)) // programming error: all messages are plain structs
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	_, _ = e.w.Write(buf.Bytes())
}

// statusOf extracts HTTP code, reason and message from an error returned by a
// client-go call. Transport errors (connection refused, ...) have code 0.
func statusOf(err error) (code int32, reason, message string) {
	var s apierrors.APIStatus
	if errors.As(err, &s) {
		st := s.Status()
		msg := st.Message
		if msg == "" {
			msg = err.Error()
		}
		return st.Code, string(st.Reason), msg
	}
	return 0, "", err.Error()
}

// objectStatus decodes the object of a watch ERROR event the way the reflector
// does (apierrors.FromObject understands *metav1.Status and unstructured
// Status objects, which the dynamic client produces).
func objectStatus(obj runtime.Object) (code int32, reason, message string) {
	err := apierrors.FromObject(obj)
	var s apierrors.APIStatus
	if errors.As(err, &s) {
		st := s.Status()
		return st.Code, string(st.Reason), st.Message
	}
	return 0, "", err.Error()
}

// eventFor builds the "event" line for a handler callback. For deletes the
// object may be a cache.DeletedFinalStateUnknown: the informer missed the
// deletion (e.g. across a relist) and only knows the last state it had.
func eventFor(informer, typ string, obj any) eventMsg {
	ev := eventMsg{Kind: "event", Informer: informer, Type: typ}
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		ev.Tombstone = true
		_, name, err := cache.SplitMetaNamespaceKey(tomb.Key)
		if err != nil {
			name = tomb.Key
		}
		ev.Name = name
		obj = tomb.Obj
	}
	if m, err := meta.Accessor(obj); err == nil {
		if !ev.Tombstone {
			ev.Name = m.GetName()
		}
		ev.RV = m.GetResourceVersion()
	}
	return ev
}

// storeSnapshot maps name -> resourceVersion for every object in a store.
// The harness watches a single namespace, so names are unique.
func storeSnapshot(store cache.Store) map[string]string {
	objs := map[string]string{}
	for _, obj := range store.List() {
		if m, err := meta.Accessor(obj); err == nil {
			objs[m.GetName()] = m.GetResourceVersion()
		}
	}
	return objs
}
