"""CEL as kube-apiserver evaluates it (``k8s.io/apiserver/pkg/cel``): an engine that compiles an
expression against declared variables and evaluates it with bindings (``engine``), kube's
function libraries (``library``), and the mapping of JSON values typed by an OpenAPI schema to
CEL values (``values``). CRD validation rules, ValidatingAdmissionPolicy and match conditions
all compile and evaluate through ``engine.Environment``."""
