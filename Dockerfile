# The gateway as one compiled binary on a slim base, run as a non-root user, its database in a
# volume. Build: docker build -t chain-intelligence-gateway .
# Run:   docker run -p 3000:3000 -v gateway-data:/var/lib/gateway --env-file .env chain-intelligence-gateway

FROM oven/bun:1.4.5 AS build
WORKDIR /src
COPY package.json bun.lock ./
RUN bun install --frozen-lockfile --production --ignore-scripts
COPY tsconfig.json ./
COPY src ./src
COPY drizzle ./drizzle
RUN bun build --compile --minify --bytecode --format=esm src/main.ts --outfile /out/gateway

FROM debian:bookworm-slim
# The binary links glibc and libstdc++ only; ca-certificates for https upstreams.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /var/lib/gateway --shell /usr/sbin/nologin gateway \
 && install -d -o gateway -g gateway -m 0750 /var/lib/gateway
COPY --from=build /out/gateway /usr/local/bin/gateway
USER gateway
WORKDIR /var/lib/gateway
ENV HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_PATH=/var/lib/gateway/gateway.sqlite \
    LOG_FORMAT=json
VOLUME ["/var/lib/gateway"]
EXPOSE 3000
# No curl in the image: bash's /dev/tcp asks /readyz and looks for a 200 status line.
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${PORT} && printf 'GET /readyz HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]
# SIGTERM drains requests in flight (DRAIN_SECONDS) and exits 0; compose gives it longer than that.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/gateway"]
