import type { ComponentChildren } from 'preact';
import { LabelledInput } from './ui';

/** The words a role or a permission is described by, as typed in its form. */
export interface DefinitionDraft {
  name: string;
  displayName: string;
  description: string;
  groupName: string;
}

/** A form's starting words: a definition's own, or empty ones for a new definition. */
export const draftOf = (definition?: {
  name: string;
  display_name?: string | null;
  description?: string | null;
  group_name?: string | null;
}): DefinitionDraft => ({
  name: definition?.name ?? '',
  displayName: definition?.display_name ?? '',
  description: definition?.description ?? '',
  groupName: definition?.group_name ?? '',
});

/** A filled optional field, trimmed, under its API name; an empty one is left out. */
const filled = (field: string, value: string): Record<string, string> =>
  value.trim() ? { [field]: value.trim() } : {};

/** A new definition's body: its name, and each optional field that is filled (a role has no group). */
export const newDefinitionBody = (draft: DefinitionDraft): Record<string, string> => ({
  name: draft.name.trim(),
  ...filled('display_name', draft.displayName),
  ...filled('group_name', draft.groupName),
  ...filled('description', draft.description),
});

/**
 * The fields of a role or a permission: name, display name, group (permissions only) and
 * description; `prefix` names their ids (`role-name`, `edit-permission-group`).
 */
export function DefinitionFields({
  prefix,
  nameLabel = 'Name',
  draft,
  onDraft,
  withGroup = false,
  readOnly = false,
  nameFixed = false,
  nameNote,
}: {
  prefix: string;
  nameLabel?: string;
  draft: DefinitionDraft;
  onDraft: (draft: DefinitionDraft) => void;
  withGroup?: boolean;
  readOnly?: boolean;
  /** A system definition keeps its name. */
  nameFixed?: boolean;
  /** Said under the name (why it cannot change). */
  nameNote?: ComponentChildren;
}) {
  const bind = (field: keyof DefinitionDraft) => ({
    value: draft[field],
    onValue: (value: string) => onDraft({ ...draft, [field]: value }),
  });
  return (
    <>
      <LabelledInput
        id={`${prefix}-name`}
        label={nameLabel}
        required
        readOnly={readOnly || nameFixed}
        {...bind('name')}
      />
      {nameNote}
      <LabelledInput id={`${prefix}-display-name`} label="Display name" readOnly={readOnly} {...bind('displayName')} />
      {withGroup && <LabelledInput id={`${prefix}-group`} label="Group" readOnly={readOnly} {...bind('groupName')} />}
      <LabelledInput id={`${prefix}-description`} label="Description" readOnly={readOnly} {...bind('description')} />
    </>
  );
}
