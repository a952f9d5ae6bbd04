import { resolve } from 'node:path';
import { plainToInstance } from 'class-transformer';
import { IsIn, IsOptional, validateSync } from 'class-validator';
import { describeValidationErrors } from '../common';

export class ConfigurationError extends Error {}

/** A concern's variables: a class whose class-validator decorators check each one it declares. */
type VariablesClass = new () => object;
type VariablesOf<Classes extends readonly VariablesClass[]> = { [K in keyof Classes]: InstanceType<Classes[K]> };

/**
 * The variables each class declares, checked; an empty variable counts as unset. Only the declared
 * variables are checked, so a command that reads a few concerns is not stopped by a mistake in another.
 * Every concern is checked before any fails, so that one message names every bad variable.
 */
export function readVariables<const Classes extends readonly VariablesClass[]>(env: NodeJS.ProcessEnv, classes: Classes): VariablesOf<Classes> {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const messages: string[] = [];
  const variables = classes.map((variablesClass) => {
    const vars = plainToInstance(variablesClass, present);
    // One message a variable: its first failed check says what the variable takes.
    const errors = validateSync(vars, { stopAtFirstError: true });
    if (errors.length > 0) {
      messages.push(describeValidationErrors(errors));
    }
    return vars;
  });
  if (messages.length > 0) {
    throw new ConfigurationError(`Invalid configuration: ${messages.join('; ')}`);
  }
  return variables as VariablesOf<Classes>;
}

/** NODE_ENV, which several concerns read: production asks more of them (keys, an explicit demo seed, a metrics token). */
export class RuntimeVariables {
  @IsOptional()
  @IsIn(['development', 'production', 'test'])
  NODE_ENV?: string;
}

export function isProduction(vars: RuntimeVariables): boolean {
  return vars.NODE_ENV === 'production';
}

/** Where the embedded database and the generated token secret live by default. */
export function dataDirectory(cwd: string): string {
  return resolve(cwd, 'data');
}
