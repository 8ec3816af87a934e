// Request validators and response serialisers compiled on a route's first request instead of as the server starts:
// compiling every route's schemas (ajv and fast-json-stringify) was a third of the start-up time, and most
// processes serve a few of the routes only. Each route's compiled function is the one Fastify would have built.
// ajv and fast-json-stringify themselves are loaded with the first compilation.
import { createRequire } from "node:module";
import type { FastifyServerOptions } from "fastify";

type CompilersFactory = NonNullable<
  NonNullable<FastifyServerOptions["schemaController"]>["compilersFactory"]
>;
type SerializerFactory = NonNullable<CompilersFactory["buildSerializer"]>;
/** What Fastify passes and gets back (the ajv compiler's published types describe an older interface). */
type RouteValidatorCompiler = (route: object) => (data: never) => unknown;
type ValidatorBuilder = (externalSchemas: unknown, options: unknown) => RouteValidatorCompiler;

/** `compile()`'s function, compiled when first called; a validator's `errors` are those of its last call. */
function onFirstCall<F extends (data: never) => unknown>(compile: () => F): F {
  let compiled: F | undefined;
  const lazy = ((data: never) => {
    compiled ??= compile();
    const result = compiled(data);
    (lazy as { errors?: unknown }).errors = (compiled as { errors?: unknown }).errors;
    return result;
  }) as F;
  return lazy;
}

/** The compilers of one Fastify instance, which shares them between its plugins as Fastify's own do. */
export function lazySchemaCompilers(): CompilersFactory {
  const require = createRequire(import.meta.url);
  let validatorPool: ValidatorBuilder | undefined;
  let serializerPool: SerializerFactory | undefined;
  const buildValidator: ValidatorBuilder = (externalSchemas, options) => {
    let compiler: RouteValidatorCompiler | undefined;
    const compilerOf = () => {
      validatorPool ??= (require("@fastify/ajv-compiler") as () => ValidatorBuilder)();
      return (compiler ??= validatorPool(externalSchemas, options));
    };
    return (route) => onFirstCall(() => compilerOf()(route));
  };
  const buildSerializer: SerializerFactory = (externalSchemas, options) => {
    let compiler: ReturnType<SerializerFactory> | undefined;
    const compilerOf = () => {
      serializerPool ??= (require("@fastify/fast-json-stringify-compiler") as () => SerializerFactory)();
      return (compiler ??= serializerPool(externalSchemas, options));
    };
    return (route) => onFirstCall(() => compilerOf()(route));
  };
  return {
    buildValidator: buildValidator as unknown as CompilersFactory["buildValidator"],
    buildSerializer,
  };
}
