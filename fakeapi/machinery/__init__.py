"""Generic API machinery, kube's ``k8s.io/apimachinery`` and the request helpers of
``k8s.io/apiserver``: Status errors, ObjectMeta rules, selectors, list/delete options, continue
tokens, schemas and field validation, patches, server-side apply and managedFields, version
conversion, and Go's value formatting where kube's messages print Go values. Knows no resource in
particular and nothing of storage."""
