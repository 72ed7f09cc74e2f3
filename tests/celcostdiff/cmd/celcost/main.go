// Command celcost runs apiextensions-apiserver v0.35.4's own compilation of CRD validation rules
// (pkg/apiserver/schema/cel.Compile, as CRD validation calls it) on JSON-lines cases, so that
// fakeapi's cost estimator (fakeapi/cel/cost.py) can be compared with cel-go's and kube's.
//
// Each stdin line is one case, a node's openAPIV3Schema (apiextensions.k8s.io/v1) with its
// x-kubernetes-validations and whether it is a resource root; each stdout line is its result:
//
//	{"schema":<openAPIV3Schema>,"root":<bool>}
//	  -> {"rules":[{"maxCost":N,"maxCardinality":N,"messageCost":N,"error":"..."},...]}
//
// maxCost and messageCost are the rule's and its messageExpression's estimated costs
// (CompilationResult.MaxCost, MessageExpressionMaxCost), maxCardinality how many times kube
// assumes the rule runs when nothing above the node bounds it; error is a rule's compilation
// error, if any. A line that cannot be processed yields {"error":"..."}.
//
// A case with a "value" also validates that value with the schema's rules as CRD validation
// does (Validator.Validate, a create, with the given "budget", default RuntimeCELCostBudget):
//
//	{"schema":...,"root":<bool>,"value":<JSON>,"budget":N}
//	  -> {"rules":[...],"actualCost":N,"errors":["<field error>",...]}
//
// actualCost is the budget spent (the rules' runtime costs, cel-go's CostTracker), errors the
// field errors as kube prints them.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

type request struct {
	Schema apiextensionsv1.JSONSchemaProps `json:"schema"`
	Root   bool                            `json:"root"`
	Value  json.RawMessage                 `json:"value,omitempty"`
	Budget int64                           `json:"budget,omitempty"`
}

type rule struct {
	MaxCost        uint64 `json:"maxCost"`
	MaxCardinality uint64 `json:"maxCardinality"`
	MessageCost    uint64 `json:"messageCost"`
	Error          string `json:"error,omitempty"`
}

type response struct {
	Rules      []rule   `json:"rules,omitempty"`
	ActualCost *int64   `json:"actualCost,omitempty"`
	Errors     []string `json:"errors,omitempty"`
	Error      string   `json:"error,omitempty"`
}

func compile(line []byte) response {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return response{Error: err.Error()}
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&req.Schema, &internal, nil); err != nil {
		return response{Error: err.Error()}
	}
	structural, err := structuralschema.NewStructural(&internal)
	if err != nil {
		return response{Error: err.Error()}
	}
	// the environment CRD validation compiles new expressions in
	envSet := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
	results, err := cel.Compile(structural, model.SchemaDeclType(structural, req.Root), celconfig.PerCallLimit,
		envSet, cel.NewExpressionsEnvLoader())
	if err != nil {
		return response{Error: err.Error()}
	}
	out := response{Rules: []rule{}}
	for _, result := range results {
		r := rule{MaxCost: result.MaxCost, MaxCardinality: result.MaxCardinality, MessageCost: result.MessageExpressionMaxCost}
		if result.Error != nil {
			r.Error = result.Error.Detail
		}
		out.Rules = append(out.Rules, r)
	}
	if req.Value != nil {
		var value interface{}
		if err := utiljson.Unmarshal(req.Value, &value); err != nil {
			return response{Error: err.Error()}
		}
		budget := req.Budget
		if budget == 0 {
			budget = celconfig.RuntimeCELCostBudget
		}
		validator := cel.NewValidator(structural, req.Root, celconfig.PerCallLimit)
		errs, remaining := validator.Validate(context.Background(), nil, structural, value, nil, budget)
		spent := budget - remaining
		out.ActualCost = &spent
		for _, fieldErr := range errs {
			out.Errors = append(out.Errors, fieldErr.Error())
		}
	}
	return out
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		if err := out.Encode(compile(in.Bytes())); err != nil {
			os.Exit(1)
		}
	}
}
