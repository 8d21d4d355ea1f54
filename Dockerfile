# meeting-notes: the Slack bot, run directly by Node 24 (type stripping, no build step).
#
# Stage "build": installs the production dependencies only (`npm ci --omit=dev`, exactly as
#   package-lock.json says): plain JavaScript, nothing to compile (the SQLite store is Node's
#   built-in node:sqlite), so no compiler is installed. Then the source is copied.
# Stage "runtime": a clean node:24-slim with no compilers, Debian's ffmpeg (the bot prepares
#   videos and recordings the Note Service would refuse as they are; ~100 MB of the image)
#   and util-linux (its `prlimit` bounds each FFmpeg run's memory; part of Debian already),
#   the app in /app, run as the unprivileged `node` user. /app/data is a volume: the default SQLite store
#   (STORE_URL=sqlite://data/meeting-notes.sqlite) and the recordings' temp folder
#   (data/meeting-notes.sqlite.tmp) live there, so keeping that one volume keeps every job.
#
# Configuration comes from the environment at run time (see .env.example and README):
#   docker run --env-file .env -v meeting-notes-data:/app/data -p 3000:3000 meeting-notes
# Never bake tokens, the signing secret or the API key into the image (.dockerignore keeps
# .env out of the build context).

FROM node:24-slim AS build
WORKDIR /app
# Dependencies first: this layer is rebuilt only when the manifest or the lock file changes.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts
COPY src/ ./src/
# Node's compile cache, filled now: the app then starts without loading Node's TypeScript
# stripper (≈19 MB of RSS for the life of the process). Read-only to the app user, which
# only reads it; a cache that does not match (another Node version, other V8 flags) is
# compiled again. Filled under the flags of the CMD below: the cache is kept per flag set.
ENV NODE_COMPILE_CACHE=/app/node_modules/.cache/node-compile-cache
COPY scripts/warm-compile-cache.ts ./scripts/
RUN node --optimize-for-size scripts/warm-compile-cache.ts

FROM node:24-slim AS runtime
ENV NODE_ENV=production
RUN apt-get update \
  && apt-get install -y --no-install-recommends ffmpeg util-linux \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_COMPILE_CACHE=/app/node_modules/.cache/node-compile-cache
# The code stays owned by root: the app user may write only its data folder.
COPY --from=build /app /app
# Created and chowned before VOLUME, so a new named volume starts out writable by `node`.
RUN mkdir -p /app/data && chown node:node /app/data
VOLUME /app/data
USER node
# HTTP mode: Slack requests at POST /slack/events; GET /healthz in both modes.
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "src/healthcheck.ts"]
# The V8 flags of `npm start`: V8 favours memory over speed (a small young generation,
# leaner code), ≈12 MB less RSS at idle and a lower peak in a relay (README, "Memory").
CMD ["node", "--optimize-for-size", "src/main.ts"]
