// Errors a partner may see. Every one carries `extensions.code`; messages never include upstream
// URLs, stack traces or secrets.
import { GraphQLError } from 'graphql';

export function badUserInput(message: string, argumentName: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', argument: argumentName } });
}

export function upstreamUnavailable(feed: string, detail = 'did not answer in time or answered with an error'): GraphQLError {
  return new GraphQLError(`Upstream feed ${feed} is unavailable: ${detail}.`, {
    extensions: { code: 'UPSTREAM_UNAVAILABLE', feed },
  });
}

/** A configured feed answered, but none of its offers can be served (every record dropped): the answer is partial. */
export function feedUnavailable(feed: string, detail: string): GraphQLError {
  return new GraphQLError(`Feed ${feed} is unavailable: ${detail}; its plans are missing from this answer.`, {
    extensions: { code: 'FEED_UNAVAILABLE', feed },
  });
}
