# syntax=docker/dockerfile:1
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/nest-guard/package.json ./packages/nest-guard/
RUN npm ci --no-audit --no-fund
COPY packages/nest-guard ./packages/nest-guard
COPY tsconfig.json tsconfig.build.json nest-cli.json ormconfig.ts ./
COPY src ./src
RUN npm run build

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production APP_ENV=production PORT=3000 DATA_DIR=/var/lib/auth
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/nest-guard/package.json ./packages/nest-guard/
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY --from=build /app/packages/nest-guard/dist ./packages/nest-guard/dist
RUN mkdir -p /var/lib/auth && chown node:node /var/lib/auth
USER node
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["node", "dist/src/main.js"]
