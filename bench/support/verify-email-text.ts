/** The text the hot write path changes (`PUT /admin/v1/text/message/verifyemail/en`), shared by the targets that write or read it. */
export const TEXT_PATH = '/admin/v1/text/message/verifyemail/en';

/** A full-replacement body; only the title differs from request to request, so every PUT is a change. */
export function textBody(title: string): string {
  return JSON.stringify(textFields(title));
}

export function textFields(title: string) {
  return {
    title,
    preHeader: 'Verify your email',
    subject: 'Verify your email address',
    greeting: 'Hello {{.DisplayName}},',
    text: 'Please verify your email address by clicking the button below.',
    buttonText: 'Verify',
    footerText: 'If you did not ask for this, ignore this message.',
  };
}

/** One PUT of the text; its answer's sequence (the aggregate's, after the event it appended). */
export async function setText(baseUrl: string, headers: Record<string, string>, title: string): Promise<number> {
  const res = await fetch(baseUrl + TEXT_PATH, { method: 'PUT', headers, body: textBody(title) });
  if (!res.ok) throw new Error(`PUT ${TEXT_PATH} answered ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as { details: { sequence: string } };
  return Number(body.details.sequence);
}
