"""ValidatingAdmissionPolicy, as kube-apiserver's ``ValidatingAdmissionPolicy`` plugin enforces it
(``k8s.io/apiserver/pkg/admission/plugin/policy/validating`` over ``policy/generic`` and
``policy/matching``): the stored policies and their bindings, compiled once per stored version
(``compiled``), matched against each write and evaluated with ``fakeapi.cel`` (``dispatch``).
The policies run right before the validating webhooks, as in kube's chain, and only for the
writes the HTTP layer serves (their ``request`` variable is the request's user and options)."""
