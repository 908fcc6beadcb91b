# One image for every presence-link process: `docker run IMAGE front|worker|gateway|serve|migrate|keys ...`.
# glibc (Debian) base: the uWebSockets.js build that hyper-express uses (package.json "overrides") ships
# prebuilt binaries for glibc only, so Alpine will not do.

# Stage 1: every dependency, then the TypeScript build.
FROM node:20-bookworm AS build
WORKDIR /app
# npm ci's postinstall applies patches/ (patch-package): hyper-express's body parser must not touch a uWS response
# after the client hung up (the front refuses to start without the patch).
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY workers ./workers
COPY scripts/write-build-info.mjs ./scripts/
# The commit presence_link_build_info reports (the build context has no .git):
# `docker build --build-arg COMMIT=$(git rev-parse HEAD) .` or `COMMIT=$(git rev-parse HEAD) docker compose build`.
ARG COMMIT=
# npm run build also copies the Lua scripts of src/redis/scripts next to their compiled loader and writes
# dist/src/build-info.json (version and commit).
RUN COMMIT="$COMMIT" npm run build

# Stage 2: production dependencies only: the build stage's tree, patched, with the development packages pruned
# (`npm ci --omit=dev` would run the postinstall without patch-package, a development package, and fail).
FROM build AS deps
RUN npm prune --omit=dev --no-audit --no-fund && npm cache clean --force

# Stage 3: the runtime.
FROM node:20-bookworm-slim
# Every interface of the container, set explicitly (outside production HOST defaults to 127.0.0.1, which a container's
# published ports cannot reach). Publish ports deliberately: the metrics ports have no authentication.
ENV NODE_ENV=production
ENV HOST=0.0.0.0
# `presence-link backup` and `restore` run the MariaDB client programs (mariadb-dump, mariadb); backups go to
# /backups, a volume in docker-compose.yml, owned by the user the processes run as (docs/operations.md).
RUN apt-get update && apt-get install -y --no-install-recommends mariadb-client && rm -rf /var/lib/apt/lists/* \
  && mkdir /backups && chown node:node /backups
WORKDIR /app
COPY --chown=node:node package.json ./
COPY --from=deps --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
USER node
# API, front metrics, worker metrics, gateway metrics.
EXPOSE 8080 9464 9465 9466
ENTRYPOINT ["node", "dist/src/cli.js"]
CMD ["serve"]
