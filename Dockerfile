# syntax=docker/dockerfile:1

# KServe controller manager (classic InferenceService controller), built from
# the upstream source of KSERVE_VERSION (upstream cmd/manager).

# renovate: datasource=github-releases depName=kserve/kserve
ARG KSERVE_VERSION=v0.20.0

# The builder runs on the build host and cross-compiles for the target
# platform. Keep its Go version in step with the `go` and `toolchain` lines of
# upstream's go.mod at KSERVE_VERSION: `gsvendor versions --check` compares them.
FROM --platform=$BUILDPLATFORM golang:1.25.8 AS builder

ARG KSERVE_VERSION
ARG TARGETOS
ARG TARGETARCH
# renovate: datasource=go depName=github.com/google/go-licenses
ARG GO_LICENSES_VERSION=v1.6.0

WORKDIR /workspace

RUN git clone --depth 1 --branch "${KSERVE_VERSION}" https://github.com/kserve/kserve.git .

RUN --mount=type=cache,target=/go/pkg/mod \
    go mod download

RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    GOOS=$TARGETOS GOARCH=$TARGETARCH CGO_ENABLED=0 GOFLAGS=-mod=readonly \
    go build -a -trimpath -o /out/manager ./cmd/manager

# Ship the licenses of the Go dependencies compiled into the binary, as the
# upstream image does.
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    go install "github.com/google/go-licenses@${GO_LICENSES_VERSION}" \
 && GOOS=$TARGETOS GOARCH=$TARGETARCH CGO_ENABLED=0 \
    go-licenses save --save_path /out/third_party/library ./cmd/manager

FROM gcr.io/distroless/static:nonroot

COPY --from=builder /out/third_party /third_party
COPY --from=builder /out/manager /manager

USER 65532:65532

ENTRYPOINT ["/manager"]
