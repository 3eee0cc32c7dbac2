/**
 * The Console's command form: the verb with the game's catalogue as suggestions, the chosen
 * verb's help (its usage, what it aims at, each argument's meaning, the fixed choices as a list),
 * its subject (a player, or a world position) and arguments, and Run behind a dialog. The
 * command goes to `POST /admin/v1/game/commands` (the `/v1` route itself); the game checks the
 * arguments and answers in its own words, which the page shows.
 */
import { h } from 'preact';
import { useState } from 'preact/hooks';
import type { components } from '../admin-schema.ts';
import { api } from '../api.ts';
import { attempt, ConfirmButton, ErrorLine, Field, type View } from '../ui.ts';
import { Combobox } from './verb-combobox.ts';

type Entry = components['schemas']['CommandCatalogEntry'];
type Arg = components['schemas']['CommandArg'];
export type CommandResult = components['schemas']['CommandResult'];

const LEVELS = ['regular', 'admin', 'super admin', 'elevated', 'developer'];
const TARGETS: Record<string, string> = {
  none: 'Server-wide: aimed at nobody.',
  player: 'Aimed at a player.',
  position: 'Aimed at a world position.',
  player_or_position: 'Aimed at a player or a world position.',
};

/** `#Teleport <player> <x> <y> <z>`, `[count]` for an optional argument, `<message…>` for a repeating one. */
export function usage(entry: Entry): string {
  const subject = { player: ' <player>', position: ' <x y z>', player_or_position: ' <player | x y z>' };
  const args = entry.args.map((arg) => {
    const name = arg.repeating ? `${arg.name}…` : arg.name;
    return arg.required ? ` <${name}>` : ` [${name}]`;
  });
  return `#${entry.verb}${subject[entry.target_mode as keyof typeof subject] ?? ''}${args.join('')}`;
}

interface Aim {
  by: 'player' | 'position';
  player: string;
  x: string;
  y: string;
  z: string;
}

const NO_AIM: Aim = { by: 'player', player: '', x: '', y: '', z: '' };

/** The request body, or why it cannot be sent yet. */
function requestOf(
  entry: Entry,
  values: Record<string, string>,
  aim: Aim,
): { body: components['schemas']['CommandRequest'] } | { missing: string } {
  const given = entry.args.map((arg) => (values[arg.name] ?? '').trim());
  const last = given.findLastIndex((value) => value !== '');
  const args = given.slice(0, last + 1);
  const gap = entry.args.find((arg, index) => index < last && args[index] === '');
  if (gap) return { missing: `Give ${gap.name}: the arguments are positional.` };
  const required = entry.args.find((arg, index) => arg.required && (given[index] ?? '') === '');
  if (required) return { missing: `Give ${required.name}.` };
  const mode = entry.target_mode;
  const by = mode === 'player' || mode === 'position' ? mode : aim.by;
  if (mode === 'none') return { body: { verb: entry.verb, args } };
  if (by === 'player') {
    if (aim.player.trim() === '') return { missing: 'Give the player.' };
    return { body: { verb: entry.verb, args, subject: { player: aim.player.trim() } } };
  }
  const [x, y, z] = [aim.x, aim.y, aim.z].map((text) => (text.trim() === '' ? NaN : Number(text)));
  if (![x, y, z].every(Number.isFinite)) return { missing: 'Give x, y and z as numbers.' };
  return { body: { verb: entry.verb, args, subject: { x, y, z } as { x: number; y: number; z: number } } };
}

export function CommandForm(props: { catalog: Entry[]; onRan: (result: CommandResult) => void }): View {
  const [verb, setVerb] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [aim, setAim] = useState<Aim>(NO_AIM);
  const [error, setError] = useState<string | undefined>(undefined);
  const entry = props.catalog.find((candidate) => candidate.verb.toLowerCase() === verb.trim().toLowerCase());
  const request = entry ? requestOf(entry, values, aim) : undefined;
  const run = () =>
    void attempt(async () => {
      if (request === undefined || !('body' in request)) return;
      props.onRan(await api<CommandResult>('POST', '/game/commands', request.body));
    }, setError);
  const suggestions = props.catalog.map((candidate) => ({
    value: candidate.verb,
    hint: `${LEVELS[candidate.level] ?? candidate.level}, ${candidate.target_mode}`,
  }));
  return h(
    'form',
    { class: 'card command-form', onSubmit: (event: Event) => event.preventDefault() },
    h(Combobox, {
      id: 'command-verb',
      label: 'Command',
      value: verb,
      suggestions,
      describedBy: 'command-help',
      onInput: (value) => {
        setVerb(value);
        setValues({});
      },
    }),
    h(VerbHelp, { entry, typed: verb }),
    entry ? h(SubjectFields, { entry, aim, onAim: setAim }) : null,
    entry
      ? entry.args.map((arg) =>
          h(ArgField, {
            key: `${entry.verb}-${arg.name}`,
            arg,
            value: values[arg.name] ?? '',
            onInput: (value: string) => setValues({ ...values, [arg.name]: value }),
          }),
        )
      : null,
    request && 'missing' in request
      ? h('p', { class: 'hint', 'aria-live': 'polite' }, request.missing)
      : null,
    h(ConfirmButton, {
      label: 'Run',
      name: entry ? `Run ${entry.verb}` : 'Run command',
      title: `Run ${entry?.verb ?? 'the command'} in the game?`,
      consequence:
        'The game runs it at once, as the panel console, and records it in the command history. ' +
        'A command can change players, money and the world; it cannot be undone from here.',
      disabled: request === undefined || !('body' in request),
      onConfirm: run,
    }),
    h(ErrorLine, { text: error }),
  );
}

function VerbHelp(props: { entry: Entry | undefined; typed: string }): View {
  const { entry } = props;
  if (entry === undefined) {
    const text =
      props.typed.trim() === ''
        ? 'Type a command; the game’s commands are suggested as you type (arrow keys and Enter).'
        : 'Not a command of the game’s catalogue.';
    return h('p', { id: 'command-help', class: 'hint' }, text);
  }
  return h(
    'div',
    { id: 'command-help', class: 'command-help', 'data-testid': 'command-help' },
    h('p', null, h('code', null, usage(entry))),
    h(
      'p',
      { class: 'hint' },
      `${TARGETS[entry.target_mode] ?? entry.target_mode} Level ${entry.level} (${LEVELS[entry.level] ?? '?'}); ` +
        `output: ${entry.output_mode}.${entry.requires_online ? ' Needs a connected player to carry it.' : ''}`,
    ),
  );
}

function SubjectFields(props: { entry: Entry; aim: Aim; onAim: (aim: Aim) => void }): View {
  const { entry, aim, onAim } = props;
  if (entry.target_mode === 'none') return null;
  const both = entry.target_mode === 'player_or_position';
  const by = both ? aim.by : entry.target_mode;
  const set = (change: Partial<Aim>) => onAim({ ...aim, ...change });
  const input = (name: 'player' | 'x' | 'y' | 'z', label: string) =>
    h(
      Field,
      { key: name, label },
      h('input', {
        value: aim[name],
        inputMode: name === 'player' ? undefined : 'decimal',
        autoComplete: 'off',
        onInput: (event: Event) => set({ [name]: (event.target as HTMLInputElement).value }),
      }),
    );
  return h(
    'fieldset',
    { class: 'subject' },
    h('legend', null, 'Aimed at'),
    both
      ? (['player', 'position'] as const).map((choice) =>
          h(
            'label',
            { key: choice, class: 'check' },
            h('input', {
              type: 'radio',
              name: 'aim',
              checked: by === choice,
              onChange: () => set({ by: choice }),
            }),
            choice === 'player' ? ' A player' : ' A position',
          ),
        )
      : null,
    by === 'player'
      ? input('player', 'Player (platform id, or social:ID)')
      : [input('x', 'x'), input('y', 'y'), input('z', 'z')],
  );
}

function ArgField(props: { arg: Arg; value: string; onInput: (value: string) => void }): View {
  const { arg } = props;
  const id = `arg-${arg.name}`;
  const label = `${arg.name}${arg.required ? '' : ' (optional)'}`;
  const help = `${arg.description} (${arg.data_type}${arg.repeating ? ', every remaining word' : ''})`;
  const onInput = (event: Event) =>
    props.onInput((event.target as HTMLInputElement | HTMLSelectElement).value);
  const control =
    arg.values.length > 0
      ? h(
          'select',
          { value: props.value, 'aria-describedby': `${id}-help`, onChange: onInput },
          h('option', { value: '' }, arg.required ? 'Choose…' : 'Leave out'),
          arg.values.map((value) => h('option', { key: value, value }, value)),
        )
      : h('input', {
          value: props.value,
          autoComplete: 'off',
          'aria-describedby': `${id}-help`,
          inputMode: arg.data_type === 'int' || arg.data_type === 'float' ? 'decimal' : undefined,
          onInput,
        });
  // The help stays outside the label, so the field's name is the argument's alone.
  return h('div', null, h(Field, { label }, control), h('p', { id: `${id}-help`, class: 'hint' }, help));
}
