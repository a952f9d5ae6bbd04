# fleet-registry on Node 26 LTS. Build: docker build -t fleet-registry .
# Run and deploy: docs/deploy.md.

FROM node:26-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No dependency needs its install script here: better-sqlite3's binaries come prebuilt in its package, and
# the image's own Node runs the build, so the node devDependency need not fetch another.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY nest-cli.json tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npx nest build \
 && npm prune --omit=dev --no-audit --no-fund

FROM node:26-bookworm-slim
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
