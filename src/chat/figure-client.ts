/**
 * The one client of the figure server's JSON routes: requests typed by the wire module, answers
 * checked against it, every failure a {@link FigureServerError}. Built on `requestFigureServer`
 * (or any function of the same shape, such as a session's), which does the HTTP.
 */
import type { z } from 'zod';

import { ANSWERS, type RouteAnswer, type RouteName, type RouteRequest } from '../tools/wire';
import { FigureServerError } from './figure-server';

/** POST JSON to a figure-server route and resolve to its parsed JSON answer. */
export type FigureServerRequest = <T>(
  route: string,
  body: unknown,
  signal: AbortSignal
) => Promise<T>;

/** Typed, checked calls to the figure server. */
export class FigureClient {
  constructor(private readonly _request: FigureServerRequest) {}

  /** Call a route; an answer that does not match the wire module is a `bad-answer` error. */
  async call<R extends RouteName>(
    route: R,
    body: RouteRequest<R>,
    signal: AbortSignal = new AbortController().signal
  ): Promise<RouteAnswer<R>> {
    const answer = await this._request<unknown>(route, body, signal);
    const schema: z.ZodType<RouteAnswer<R>> = ANSWERS[route];
    const parsed = schema.safeParse(answer);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? issue.path.join('.') : 'answer';
      throw new FigureServerError(
        502,
        `The figure server's ${route} answer does not match this labextension (${where}: ${issue?.message}). Reinstall jupyterlab-figure-chat and restart JupyterLab so both are the same version.`,
        'bad-answer'
      );
    }
    return parsed.data;
  }
}
