// A browser on the test pages: it opens pages, posts their forms and signs in as a person would, and reads a page
// as markup with white space squashed, or as the text a person sees.
import { expect } from "vitest";
import type { TestServer } from "./api-server.ts";

/** The markup with every run of white space made one space. */
export const squashed = (page: string) => page.replace(/\s+/g, " ");
/** What a person reads: the text between tags, entities left as they are. */
export const visible = (page: string) =>
  squashed(page.replace(/<style>[^]*<\/style>/, "").replace(/<[^>]+>/g, " "));

export interface Browser {
  /** GET /tests/<path>, following no redirect. */
  open(path: string, headers?: Record<string, string>): Promise<Response>;
  /** POSTs a form to /tests/<path>, following no redirect. */
  submit(path: string, form: Record<string, string>, headers?: Record<string, string>): Promise<Response>;
  /** POST /tests/sign-in. */
  signIn(form: Record<string, string>, headers?: Record<string, string>): Promise<Response>;
  /** Signs in with `token` through the form `form` names (a test_id or a repository) and returns the Cookie header. */
  sessionCookie(token: string, form: Record<string, string>): Promise<string>;
}

export function browserOn(server: TestServer): Browser {
  const submit = (path: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/tests/${path}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(form).toString(),
      redirect: "manual",
    });
  const signIn = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    submit("sign-in", form, headers);
  return {
    open: (path, headers = {}) => fetch(`${server.url}/tests/${path}`, { headers, redirect: "manual" }),
    submit,
    signIn,
    async sessionCookie(token, form) {
      const response = await signIn({ token, ...form });
      expect(response.status).toBe(303);
      return (response.headers.get("set-cookie") as string).split(";")[0] as string;
    },
  };
}
