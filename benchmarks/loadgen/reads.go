package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/scheme"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// listPods: --count LISTs of the namespace's pods, one after the other. The measured LISTs read
// the whole body without decoding it, into one buffer reused from LIST to LIST (what is timed is
// the server and the transfer, not Go's decoder or allocator: client-go's Do().Raw() grows a new
// buffer per body, ~10 ms of CPU for a 9 MB LIST, which made this client, not the server, the
// limit of a closed loop); the items of the last one are counted afterwards.
func listPods(flags *flag.FlagSet) func(r *run) (map[string]any, error) {
	mode := flags.String("mode", "rv0", `rv0 (resourceVersion=0: from the watch cache), consistent (resourceVersion=""), `+
		`paged (consistent, --limit per page, following continue tokens), selector (consistent, a label selector matching 1/10 of the pods)`)
	count := flags.Int("count", 5, "LISTs to make")
	limit := flags.Int("limit", 500, "page size of --mode paged")
	return func(r *run) (map[string]any, error) {
		ctx := context.Background()
		opts := metav1.ListOptions{}
		switch *mode {
		case "rv0":
			opts.ResourceVersion = "0"
		case "consistent":
		case "paged":
			opts.Limit = int64(*limit)
		case "selector":
			opts.LabelSelector = shardLabel + "=3"
		default:
			return nil, fmt.Errorf("--mode: rv0, consistent, paged or selector; not %q", *mode)
		}
		core := r.core()
		if err := connect(ctx, []corev1client.CoreV1Interface{core}, r.namespace); err != nil {
			return nil, err
		}
		return timeLists(ctx, r, core, r.namespace, opts, *count, map[string]any{"mode": *mode})
	}
}

// timeLists makes count LISTs with opts, one after the other, each read whole into one reused
// buffer, and returns their latencies with what the last one read (bytes, pages, items).
func timeLists(ctx context.Context, r *run, core corev1client.CoreV1Interface, namespace string,
	opts metav1.ListOptions, count int, result map[string]any) (map[string]any, error) {
	samples := make([]time.Duration, 0, count)
	var errs errorLog
	var last listRead
	var buffer bytes.Buffer
	r.begin()
	for i := range count {
		start := time.Now()
		read, err := listRaw(ctx, core, namespace, opts, &buffer, i == count-1)
		samples = append(samples, time.Since(start))
		if err != nil {
			errs.record(err)
			continue
		}
		last = read
	}
	r.end()
	items := 0
	for _, body := range last.bodies {
		n, err := countItems(body)
		if err != nil {
			return nil, fmt.Errorf("counting the listed pods: %w", err)
		}
		items += n
	}
	result["ops"] = len(samples) - errs.count
	result["latency_ms"] = summarize(samples)
	result["bytes"], result["pages"], result["response_protobuf"], result["items"] = last.bytes, last.pages, last.protobuf, items
	errs.into(result)
	return result, nil
}

// listRead is what one LIST read: its pages' bodies (when kept), and whether the server
// answered protobuf.
type listRead struct {
	bodies       [][]byte
	bytes, pages int
	protobuf     bool
}

// listRaw makes one LIST (all its pages when opts has a limit), each page read into buffer; keep
// copies the pages' bodies into the result.
func listRaw(ctx context.Context, core corev1client.CoreV1Interface, namespace string, opts metav1.ListOptions,
	buffer *bytes.Buffer, keep bool) (listRead, error) {
	var read listRead
	for {
		stream, err := core.RESTClient().Get().Namespace(namespace).Resource("pods").
			VersionedParams(&opts, scheme.ParameterCodec).Stream(ctx)
		if err != nil {
			return read, err
		}
		buffer.Reset()
		_, err = buffer.ReadFrom(stream)
		stream.Close()
		if err != nil {
			return read, err
		}
		body := buffer.Bytes()
		if keep {
			read.bodies = append(read.bodies, bytes.Clone(body))
		}
		read.bytes += len(body)
		read.pages++
		read.protobuf = bytes.HasPrefix(body, protobufMagic)
		if opts.Limit == 0 {
			return read, nil
		}
		meta, err := listMeta(body)
		if err != nil || meta.Continue == "" {
			return read, err
		}
		opts.Continue = meta.Continue
	}
}

// protobufMagic starts every Kubernetes protobuf body (a runtime.Unknown envelope follows).
var protobufMagic = []byte("k8s\x00")

// listMeta reads a list body's metadata without decoding its items: in protobuf, field 1 of the
// list inside the envelope's raw field (2); in JSON, the "metadata" member, which both servers
// write before "items".
func listMeta(body []byte) (metav1.ListMeta, error) {
	var meta metav1.ListMeta
	if bytes.HasPrefix(body, protobufMagic) {
		list, err := protobufList(body)
		if err != nil {
			return meta, err
		}
		encoded, err := protoField(list, 1)
		if err != nil {
			return meta, err
		}
		return meta, meta.Unmarshal(encoded)
	}
	decoder, err := jsonMember(body, "metadata")
	if err != nil {
		return meta, err
	}
	return meta, decoder.Decode(&meta)
}

// countItems counts a list body's items without decoding them: the repeated field 2 of the list
// in protobuf, the members of "items" in JSON.
func countItems(body []byte) (int, error) {
	count := 0
	if bytes.HasPrefix(body, protobufMagic) {
		list, err := protobufList(body)
		if err != nil {
			return 0, err
		}
		for len(list) > 0 {
			num, typ, n := protowire.ConsumeTag(list)
			if n < 0 {
				return 0, protowire.ParseError(n)
			}
			if num == 2 {
				count++
			}
			list = list[n:]
			if n = protowire.ConsumeFieldValue(num, typ, list); n < 0 {
				return 0, protowire.ParseError(n)
			}
			list = list[n:]
		}
		return count, nil
	}
	decoder, err := jsonMember(body, "items")
	if err != nil {
		return 0, err
	}
	if token, err := decoder.Token(); err != nil || token != json.Delim('[') {
		return 0, errors.New(`"items" is not a JSON array`)
	}
	for ; decoder.More(); count++ {
		var item json.RawMessage
		if err := decoder.Decode(&item); err != nil {
			return 0, err
		}
	}
	return count, nil
}

// protobufList is the encoded list inside a protobuf body's envelope (runtime.Unknown's raw, 2).
func protobufList(body []byte) ([]byte, error) {
	return protoField(body[len(protobufMagic):], 2)
}

// jsonMember returns a decoder positioned at the value of a top-level member of a JSON object.
func jsonMember(body []byte, name string) (*json.Decoder, error) {
	decoder := json.NewDecoder(bytes.NewReader(body))
	if token, err := decoder.Token(); err != nil || token != json.Delim('{') {
		return nil, fmt.Errorf("a list body that is not a JSON object: %.100q", body)
	}
	for decoder.More() {
		key, err := decoder.Token()
		if err != nil {
			return nil, err
		}
		if key == name {
			return decoder, nil
		}
		var skipped json.RawMessage
		if err := decoder.Decode(&skipped); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("a list body without %q", name)
}

// protoField returns the bytes of the first length-delimited field number in a protobuf message.
func protoField(message []byte, number protowire.Number) ([]byte, error) {
	for len(message) > 0 {
		num, typ, n := protowire.ConsumeTag(message)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		message = message[n:]
		if num == number && typ == protowire.BytesType {
			value, n := protowire.ConsumeBytes(message)
			if n < 0 {
				return nil, protowire.ParseError(n)
			}
			return value, nil
		}
		n = protowire.ConsumeFieldValue(num, typ, message)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		message = message[n:]
	}
	return nil, fmt.Errorf("protobuf field %d missing", number)
}

// syncInformer: --count times, a typed pod informer (client-go's shared informer factory, on a
// new connection) starts and fills its cache; a sync is timed from the start to HasSynced.
// KUBE_FEATURE_WatchListClient=true|false in the environment picks a LIST or a streaming list.
func syncInformer(flags *flag.FlagSet) func(r *run) (map[string]any, error) {
	count := flags.Int("count", 3, "informers to sync, one after the other")
	timeout := flags.Duration("timeout", 5*time.Minute, "how long one sync may take")
	return func(r *run) (map[string]any, error) {
		var samples []time.Duration
		var errs errorLog
		items := 0
		r.begin()
		for range *count {
			factory := informers.NewSharedInformerFactoryWithOptions(r.clientset(), 0, informers.WithNamespace(r.namespace))
			informer := factory.Core().V1().Pods().Informer()
			stop := make(chan struct{})
			start := time.Now()
			factory.Start(stop)
			for !informer.HasSynced() && time.Since(start) < *timeout {
				time.Sleep(time.Millisecond)
			}
			elapsed := time.Since(start)
			if informer.HasSynced() {
				samples = append(samples, elapsed)
				items = len(informer.GetStore().ListKeys())
			} else {
				errs.record(fmt.Errorf("the informer did not sync within %s", *timeout))
			}
			close(stop)
			factory.Shutdown()
		}
		r.end()
		result := map[string]any{"ops": len(samples), "latency_ms": summarize(samples), "items": items}
		errs.into(result)
		return result, nil
	}
}
