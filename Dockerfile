# The self-hosted Node server (`npm start` semantics) for a real Postgres and, optionally,
# Upstash. Build: docker build -t signal-intel . ; run: see README, "Self-hosting with Docker".

FROM node:22-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# The workspace's manifest, which npm ci expects; the client package is not part of the server.
COPY packages/client/package.json ./packages/client/
# Production dependencies only; no install scripts are needed at run time.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:22-bookworm-slim
# HOST: in a container the published port is the boundary, so listen on every interface
# (the Node server's own default is 127.0.0.1).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8787 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY drizzle ./drizzle
COPY src ./src
# The embedded database (used only when DATABASE_URL is unset) and generated tokens live here.
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8787
VOLUME ["/data"]
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8787)+'/api/v1/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "--import", "tsx", "src/server.ts"]
