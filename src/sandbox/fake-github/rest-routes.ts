// Every REST route the fake answers. Order matters where a `{name+}` pattern could swallow a longer one:
// `commits/{ref+}/status` must be tried before `commits/{ref+}`.
import { ciRoutes } from "./ci-routes.ts";
import { gitRoutes } from "./git-routes.ts";
import { pullRequestRoutes } from "./pull-request-routes.ts";
import { repositoryRoutes } from "./repository-routes.ts";
import type { Route } from "./router.ts";

export const restRoutes: readonly Route[] = [
  ...ciRoutes,
  ...gitRoutes,
  ...pullRequestRoutes,
  ...repositoryRoutes,
];
