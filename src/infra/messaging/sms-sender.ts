/** Delivers one text message. Implementations must not write the message to the application log. */
export abstract class SmsSender {
  abstract send(to: string, message: string): Promise<void>;
}

export class SmsDeliveryError extends Error {
  override name = 'SmsDeliveryError';
}
