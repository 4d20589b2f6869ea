// The error a bad configuration stops the start with: every problem at once, each naming its
// variable or key, so a bad deployment learns all it must fix in one go.
/** Every problem of a configuration at once, each naming its variable or key. */
export class ConfigError extends Error {
  constructor(public problems: string[]) {
    super(`configuration error:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}
