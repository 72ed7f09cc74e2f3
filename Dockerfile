# fakeapi with the load-testing extra (Locust, matplotlib): one image for the server, the
# Locust master and its workers (docker-compose.yml). The server binds 0.0.0.0 in a container and
# lets anonymous clients in (Locust, Prometheus, healthchecks): a private container network only.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY fakeapi ./fakeapi
RUN pip install --no-cache-dir '.[load]'
COPY loadtests ./loadtests
EXPOSE 6443 8089 5557
CMD ["fakeapi", "serve", "--host", "0.0.0.0", "--port", "6443", "--kubeconfig", "/tmp/kubeconfig", "--anonymous-auth=true"]
