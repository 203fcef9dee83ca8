/** The error and parameter types of ApplicationSet templates (the rules: ../template.ts). */
export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateError';
  }
}

export type Params = Record<string, unknown>;
