# modgate in a container: docs/docker.md (`modgate docs docker`). The build stage makes the
# single executable exactly as `npm run build` does anywhere (same source and lockfile, same
# sha256); the runtime stage is that one file on distroless "cc", which has the two system
# libraries it links, glibc and libstdc++, and no shell. scripts/check-dockerfile.ts checks this
# file and runs the runtime stage's files without Docker (test/scripts/check-dockerfile.test.ts).

# Both architectures (docs/docker.md): the build stage runs on the platform it builds for (no
# --platform=$BUILDPLATFORM), so the Node.js the binary embeds, pinned per architecture in
# scripts/embedded-node.json, writes the code cache and the blob natively; buildx emulates arm64
# with QEMU on an x86-64 host. TARGETARCH (amd64, arm64) is Docker's name; build.ts takes Node's.
FROM node:24-bookworm-slim AS build
ARG TARGETARCH
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# The build fetches the Node.js it embeds (pinned by version and sha512 in
# scripts/embedded-node.json). `data` is empty: COPY --chown below creates /var/lib/modgate from
# it owned by the image's user (COPY copies a folder's content, not its mode; `modgate init`
# tightens the empty folder to 0700), so a new named volume starts out writable by the daemon.
RUN case "${TARGETARCH:-amd64}" in amd64) arch=x64 ;; arm64) arch=arm64 ;; \
      *) echo "modgate is built for amd64 and arm64, not $TARGETARCH" >&2; exit 1 ;; esac && \
    npm run build -- --arch "$arch" && mv "dist/modgate-linux-$arch" dist/modgate && mkdir dist/data

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /src/dist/modgate /usr/local/bin/modgate
COPY docker/modgate.toml /etc/modgate/modgate.toml
COPY --from=build --chown=65532:65532 /src/dist/data /var/lib/modgate
ENV MODGATE_DATA_DIR=/var/lib/modgate \
    MODGATE_CONFIG=/etc/modgate/modgate.toml
USER 65532:65532
VOLUME ["/var/lib/modgate"]
# The API (HTTPS: mount a certificate, docs/docker.md) and the mod link.
EXPOSE 8787 8788
HEALTHCHECK --interval=30s --timeout=10s --start-period=15s --retries=3 \
    CMD ["/usr/local/bin/modgate", "healthcheck"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/modgate"]
CMD ["serve"]
