// validationdiff answers, one JSON line per JSON line read, what apimachinery v0.35.4's generic
// validation and resource.Quantity say about a value: the differential oracle of
// tests/machinery/test_validation_vs_go.py.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/api/resource"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

type request struct {
	Fn    string          `json:"fn"`
	Value string          `json:"value"`
	Other string          `json:"other"`
	Int   int64           `json:"int"`
	Meta  json.RawMessage `json:"meta"`
	Old   json.RawMessage `json:"old"`
}

type cause struct {
	Field  string `json:"field"`
	Type   string `json:"type"`
	Detail string `json:"body"`
}

type answer struct {
	Messages []string `json:"messages"`
	Errors   []cause  `json:"errors"`
	Text     string   `json:"text"`
	Error    string   `json:"error"`
	Cmp      int      `json:"cmp"`
	Value    int64    `json:"value"`
	Milli    int64    `json:"milli"`
}

func causes(errs field.ErrorList) []cause {
	out := []cause{}
	for _, e := range errs {
		out = append(out, cause{Field: e.Field, Type: string(e.Type), Detail: e.ErrorBody()})
	}
	return out
}

func objectMeta(raw json.RawMessage) *metav1.ObjectMeta {
	meta := &metav1.ObjectMeta{}
	if err := json.Unmarshal(raw, meta); err != nil {
		panic(err)
	}
	return meta
}

func answerFor(req request) answer {
	messages := map[string]func(string) []string{
		"is_dns1123_label":              validation.IsDNS1123Label,
		"is_dns1123_subdomain":          validation.IsDNS1123Subdomain,
		"is_dns1035_label":              validation.IsDNS1035Label,
		"is_wildcard_dns1123_subdomain": validation.IsWildcardDNS1123Subdomain,
		"is_qualified_name":             validation.IsQualifiedName,
		"is_valid_label_value":          validation.IsValidLabelValue,
		"is_c_identifier":               validation.IsCIdentifier,
		"is_valid_port_name":            validation.IsValidPortName,
		"is_valid_percent":              validation.IsValidPercent,
		"is_http_header_name":           validation.IsHTTPHeaderName,
		"is_env_var_name":               validation.IsEnvVarName,
		"is_relaxed_env_var_name":       validation.IsRelaxedEnvVarName,
		"is_config_map_key":             validation.IsConfigMapKey,
		"name_is_dns_subdomain":         func(v string) []string { return apivalidation.NameIsDNSSubdomain(v, false) },
		"name_is_dns_subdomain_prefix":  func(v string) []string { return apivalidation.NameIsDNSSubdomain(v, true) },
	}
	path := field.NewPath("f")
	errorLists := map[string]func(string) field.ErrorList{
		"is_valid_ip":                    func(v string) field.ErrorList { return validation.IsValidIP(path, v) },
		"is_valid_ip_for_legacy_field":   func(v string) field.ErrorList { return validation.IsValidIPForLegacyField(path, v, false, nil) },
		"is_valid_cidr":                  func(v string) field.ErrorList { return validation.IsValidCIDR(path, v) },
		"is_valid_cidr_for_legacy_field": func(v string) field.ErrorList { return validation.IsValidCIDRForLegacyField(path, v, false, nil) },
		"is_fully_qualified_name":        func(v string) field.ErrorList { return validation.IsFullyQualifiedName(path, v) },
		"is_fully_qualified_domain_name": func(v string) field.ErrorList { return validation.IsFullyQualifiedDomainName(path, v) },
	}
	if fn, ok := messages[req.Fn]; ok {
		return answer{Messages: append([]string{}, fn(req.Value)...)}
	}
	if fn, ok := errorLists[req.Fn]; ok {
		return answer{Errors: causes(fn(req.Value))}
	}
	switch req.Fn {
	case "warnings_for_ip":
		return answer{Messages: append([]string{}, validation.GetWarningsForIP(path, req.Value)...)}
	case "is_valid_port_num":
		return answer{Messages: append([]string{}, validation.IsValidPortNum(int(req.Int))...)}
	case "quantity":
		q, err := resource.ParseQuantity(req.Value)
		if err != nil {
			return answer{Error: err.Error()}
		}
		data, _ := json.Marshal(q)
		var text string
		_ = json.Unmarshal(data, &text)
		other, err := resource.ParseQuantity(req.Other)
		cmp := 0
		if err == nil {
			cmp = q.Cmp(other)
		}
		return answer{Text: text, Cmp: cmp, Value: q.Value(), Milli: q.MilliValue()}
	case "object_meta":
		return answer{Errors: causes(apivalidation.ValidateObjectMeta(objectMeta(req.Meta), req.Int == 1, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata")))}
	case "object_meta_update":
		return answer{Errors: causes(apivalidation.ValidateObjectMetaUpdate(objectMeta(req.Meta), objectMeta(req.Old), field.NewPath("metadata")))}
	case "label_selector":
		selector := &metav1.LabelSelector{}
		if err := json.Unmarshal(req.Meta, selector); err != nil {
			panic(err)
		}
		return answer{Errors: causes(metav1validation.ValidateLabelSelector(selector, metav1validation.LabelSelectorValidationOptions{}, field.NewPath("selector")))}
	}
	panic(fmt.Sprintf("unknown fn %q", req.Fn))
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			panic(err)
		}
		if err := out.Encode(answerFor(req)); err != nil {
			panic(err)
		}
	}
}
