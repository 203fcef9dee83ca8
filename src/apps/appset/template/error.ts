/** The error and parameter types of ApplicationSet templates (the rules: ../template.ts). */
export class TemplateError extends Error {
  /** The message Argo CD's ApplicationSet controller gives for the same failure, when it is known. */
  argoMessage?: string | undefined;

  constructor(message: string, argoMessage?: string) {
    super(message);
    this.name = 'TemplateError';
    if (argoMessage !== undefined) this.argoMessage = argoMessage;
  }
}

export type Params = Record<string, unknown>;

/**
 * An evaluation error Go's text/template reports with its position: `message` is ours (short), `goMessage`
 * is Go's (`template: base:1:18: executing "base" at <.x>: map has no entry for key "x"`).
 */
export class GoExecError extends TemplateError {
  constructor(
    message: string,
    readonly goMessage: string,
  ) {
    super(message);
  }
}
