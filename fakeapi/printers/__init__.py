"""Server-side printing (kube's ``pkg/printers``): the Table columns of built-in kinds and of CRD
printer columns, and the Table responses built from them."""
