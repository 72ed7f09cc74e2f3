// The webhooks of the kubebuilder project tests/envtest/test_kubebuilder.py scaffolds, with a
// defaulting and a validating rule in place of the scaffold's TODOs (the markers are the
// scaffold's, so `make manifests` writes the same webhook configurations).

package v1

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	webappv1 "example.com/guestbook/api/v1"
)

// DefaultFoo is what the defaulting webhook sets an absent spec.foo to.
const DefaultFoo = "default-foo"

// ForbiddenFoo is the spec.foo the validating webhook refuses.
const ForbiddenFoo = "forbidden"

// SetupGuestbookWebhookWithManager registers the webhooks for Guestbook in the manager.
func SetupGuestbookWebhookWithManager(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr, &webappv1.Guestbook{}).
		WithValidator(&GuestbookValidator{}).
		WithDefaulter(&GuestbookDefaulter{}).
		Complete()
}

// +kubebuilder:webhook:path=/mutate-webapp-fakeapi-dev-v1-guestbook,mutating=true,failurePolicy=fail,sideEffects=None,groups=webapp.fakeapi.dev,resources=guestbooks,verbs=create;update,versions=v1,name=mguestbook-v1.kb.io,admissionReviewVersions=v1

// GuestbookDefaulter sets spec.foo when it is absent.
type GuestbookDefaulter struct{}

// Default implements admission.Defaulter.
func (d *GuestbookDefaulter) Default(_ context.Context, obj *webappv1.Guestbook) error {
	if obj.Spec.Foo == nil {
		foo := DefaultFoo
		obj.Spec.Foo = &foo
	}
	return nil
}

// +kubebuilder:webhook:path=/validate-webapp-fakeapi-dev-v1-guestbook,mutating=false,failurePolicy=fail,sideEffects=None,groups=webapp.fakeapi.dev,resources=guestbooks,verbs=create;update,versions=v1,name=vguestbook-v1.kb.io,admissionReviewVersions=v1

// GuestbookValidator refuses ForbiddenFoo and warns on an update that changes spec.foo.
type GuestbookValidator struct{}

func validate(obj *webappv1.Guestbook) error {
	if obj.Spec.Foo != nil && *obj.Spec.Foo == ForbiddenFoo {
		return apierrors.NewInvalid(webappv1.GroupVersion.WithKind("Guestbook").GroupKind(), obj.Name, field.ErrorList{
			field.Invalid(field.NewPath("spec", "foo"), *obj.Spec.Foo, "must not be forbidden"),
		})
	}
	return nil
}

// ValidateCreate implements admission.Validator.
func (v *GuestbookValidator) ValidateCreate(_ context.Context, obj *webappv1.Guestbook) (admission.Warnings, error) {
	return nil, validate(obj)
}

// ValidateUpdate implements admission.Validator.
func (v *GuestbookValidator) ValidateUpdate(_ context.Context, oldObj, newObj *webappv1.Guestbook) (admission.Warnings, error) {
	var warnings admission.Warnings
	if oldObj.Spec.Foo != nil && newObj.Spec.Foo != nil && *oldObj.Spec.Foo != *newObj.Spec.Foo {
		warnings = append(warnings, "spec.foo changed from "+*oldObj.Spec.Foo+" to "+*newObj.Spec.Foo)
	}
	return warnings, validate(newObj)
}

// ValidateDelete implements admission.Validator.
func (v *GuestbookValidator) ValidateDelete(_ context.Context, obj *webappv1.Guestbook) (admission.Warnings, error) {
	return nil, nil
}
