import { builder } from "../../graphql/builder.ts";
import { CheckRef } from "../checks/check-type.ts";
import { metricsRecordedByChecks } from "./metric-service.ts";
import { RepositoryMetricRef } from "./metric-type.ts";

builder.objectField(CheckRef, "metrics", (t) =>
  t.field({
    type: [RepositoryMetricRef],
    description:
      "The metrics this check recorded values for, in `MetricShortcode` order; each lists only the items the check measured, reading the value it recorded against the threshold in force then. Empty when the check recorded none.",
    resolve: (check, _args, ctx) => metricsRecordedByChecks(ctx, [check.id]),
  }),
);
