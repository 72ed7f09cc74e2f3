"""Admission webhooks, as kube-apiserver's ``MutatingAdmissionWebhook`` and
``ValidatingAdmissionWebhook`` plugins call them (``k8s.io/apiserver/pkg/admission/plugin/webhook``):
the configurations stored as ``MutatingWebhookConfiguration`` and ``ValidatingWebhookConfiguration``
objects, matched against each write (``matching``), an ``AdmissionReview`` sent to each matching
webhook and its answer checked (``review``) over HTTPS (``client``), in kube's order and with its
errors (``dispatch``).

A write runs synchronously, in one step of the event loop, but a webhook call must not block the
loop: a write that webhooks may see runs under ``fakeapi.runtime.run_awaiting`` and waits for each
call with ``wait_for``, so a slow or dead webhook costs only the requests it matches. The HTTP
layer decides that per request (``WebhookDispatcher.configured``) and says who asks and with which
options (``WebhookRequest``); a write made inside the server (a controller's) is not sent to
webhooks, as kube's own storage writes are not."""
