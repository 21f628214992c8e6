# bula serve in a container, for a compose network beside a merchant's app
# (docs/testing-and-ci.md, "In a container or a compose network").
#   docker build -t bula .
#   docker run -p 4111:4111 -v bula-data:/data bula
FROM node:24-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:24-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /src/package.json /src/oclif.manifest.json ./
COPY --from=build /src/bin ./bin
COPY --from=build /src/dist ./dist
COPY --from=build /src/templates ./templates
COPY --from=build /src/node_modules ./node_modules
# The data lives on a volume the unprivileged user owns; the data file is 0600 inside it.
RUN mkdir /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 4111
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:4111/_sim/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/run.js"]
# Other containers reach it as http://bula:4111 and receivers live at http://app:3000: both names are local to it (--allowed-host).
CMD ["serve", "--host", "0.0.0.0", "--port", "4111", "--data", "/data/bula.json", "--no-save-profile", "--allowed-host", "bula", "--allowed-host", "app"]
