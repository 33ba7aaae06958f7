# syntax=docker/dockerfile:1
#
# billsnap's image: billsnap and billsnap-lake on Debian bookworm, run as
# the user billsnap, the store in the volume /var/lib/billsnap, and
# `billsnap schedule` as the default command.
#
#   docker build -t billsnap .
#   docker run -v billsnap-data:/var/lib/billsnap billsnap demo
#
# The base images are build arguments so that a build without a registry
# can name images made locally (deploy/image_heavy_test.go does, with
# debootstrap); GOPROXY names where the Go modules come from.
ARG GO_IMAGE=docker.io/library/golang:1.26-bookworm
ARG RUNTIME_IMAGE=docker.io/library/debian:bookworm-slim

FROM ${GO_IMAGE} AS build
ARG GOPROXY=https://proxy.golang.org,direct
ENV GOPROXY=${GOPROXY} CGO_ENABLED=1 \
    GOMODCACHE=/root/go/pkg/mod GOCACHE=/root/.cache/go-build
WORKDIR /src
COPY . .
# The DuckDB driver is cgo (gcc, g++); the version stamped is the commit's,
# from .git (git, -buildvcs), as `billsnap version` prints it.
RUN --mount=type=cache,target=/root/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    go build -tags lake -trimpath -buildvcs=auto -o /out/ ./cmd/billsnap ./cmd/billsnap-lake

FROM ${RUNTIME_IMAGE}
# DuckDB, linked into billsnap, needs libstdc++ and libgcc_s, which every
# Debian image has (apt links them); HTTPS to the service and object
# storage needs the CA bundle; time zones are built into the programs.
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
RUN useradd --system --uid 10001 --user-group --create-home --home-dir /home/billsnap \
        --shell /usr/sbin/nologin billsnap \
    && mkdir -p /var/lib/billsnap /etc/billsnap \
    && chown billsnap:billsnap /var/lib/billsnap
COPY --from=build /out/billsnap /out/billsnap-lake /usr/local/bin/
USER billsnap
# The store: out: /var/lib/billsnap in the configuration; a relative out
# (the default, billsnap-data; the demo's billsnap-demo) is in it too.
WORKDIR /var/lib/billsnap
VOLUME /var/lib/billsnap
EXPOSE 9187
# The image has no curl or wget: bash asks /healthz itself and wants 200.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s \
    CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/9187 && printf 'GET /healthz HTTP/1.0\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]
ENTRYPOINT ["billsnap"]
CMD ["schedule", "--config", "/etc/billsnap/billsnap.yml", "--listen", ":9187"]
