# syntax=docker/dockerfile:1
# Build: the TypeScript compiler and dev dependencies stay in this stage.
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/nest-guard/package.json ./packages/nest-guard/
RUN npm ci --no-audit --no-fund
COPY packages/nest-guard ./packages/nest-guard
COPY tsconfig.json tsconfig.build.json nest-cli.json ormconfig.ts ./
COPY src ./src
RUN npm run build

# Run: production dependencies and the compiled output only, as the unprivileged `node` user.
FROM node:24-slim AS runtime
ENV NODE_ENV=production APP_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/var/lib/auth
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/nest-guard/package.json ./packages/nest-guard/
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY --from=build /app/packages/nest-guard/dist ./packages/nest-guard/dist
# The embedded database's cluster template (a new DATA_DIR starts from it instead of initdb).
COPY assets ./assets
RUN mkdir -p /var/lib/auth && chown node:node /var/lib/auth
USER node
# The embedded database (when DATABASE_URL is unset) and the generated seed passwords live here.
VOLUME ["/var/lib/auth"]
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# Applies pending migrations (DB_MIGRATIONS_RUN, default true), then serves. Node's options are
# those of `npm run start:prod` (README, "Performance": the heap and the embedded database's memory).
# Admin commands need no compiler: docker run ... auth-service npm run cli -- seed
CMD ["node", "--no-maglev", "--max-semi-space-size=4", "--heap-growing-percent=20", "--liftoff-only", "dist/src/main.js"]
