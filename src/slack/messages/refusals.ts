/** Why a person's action was refused or not carried out. */
export const refusalsEn = {
  // Who may do what: said to a person whose click or command was refused.
  "permission.starter_or_admin.cancel":
    "Only the person who started these notes, or a workspace admin, can cancel them, and only while in the channel the notes are for.",
  "permission.starter_or_admin.regenerate":
    "Only the person who started these notes, or a workspace admin, can regenerate them, and only while in the channel the notes are for.",
  "permission.starter_or_member.names":
    "Only the person who started these notes, or a member of the notes' channel who is not a guest, can name the speakers, and only while in that channel.",
  "permission.starter_or_member.skip":
    "Only the person who started these notes, or a member of the notes' channel who is not a guest, can skip naming the speakers, and only while in that channel.",
  "permission.starter_or_member.retry":
    "Only the person who started these notes, or a member of the notes' channel who is not a guest, can retry them, and only while in that channel.",
  "permission.channel_member":
    "Only members of this channel who are not guests can change its meeting notes settings.",
  "permission.cannot_tell":
    "Slack could not confirm just now that you may do this, so nothing changed.",
  "permission.not_this_job": "That button does not belong to these notes.",
  "permission.destination.bot_not_in":
    "Invite me to that conversation first (/invite @Meeting Notes), or choose another one.",
  "permission.destination.user_not_in": "Choose a conversation you are in.",
  "permission.destination.unknown":
    "I could not check that conversation. Try again, or choose another one.",
  "permission.recording":
    "Choose one of your own recordings, or one shared in a conversation you are in.",
  "permission.recent": "Choose a recording from the list.",
  "permission.template":
    "Choose a Word template you uploaded, or one shared in a conversation you are in.",

  // The bot's storage failed: a click or form not applied, an upload kept for later.
  "store.unavailable":
    "I could not do that just now: my storage is not answering. Try again in a minute.",
  "store.upload_waiting":
    "I have {file}: I will start on it as soon as my storage is working again.",
  "store.upload_lost":
    "I could not take {file}: my storage is not working. Share it again in a few minutes.",
} as const;

export const refusalsVi: { readonly [K in keyof typeof refusalsEn]: string } = {
  "permission.starter_or_admin.cancel":
    "Chỉ người tạo biên bản này hoặc quản trị viên workspace mới có thể hủy, và chỉ khi đang ở trong kênh của biên bản.",
  "permission.starter_or_admin.regenerate":
    "Chỉ người tạo biên bản này hoặc quản trị viên workspace mới có thể tạo lại, và chỉ khi đang ở trong kênh của biên bản.",
  "permission.starter_or_member.names":
    "Chỉ người tạo biên bản này hoặc thành viên (không phải khách) của kênh của biên bản mới có thể đặt tên người nói, và chỉ khi đang ở trong kênh đó.",
  "permission.starter_or_member.skip":
    "Chỉ người tạo biên bản này hoặc thành viên (không phải khách) của kênh của biên bản mới có thể bỏ qua bước đặt tên, và chỉ khi đang ở trong kênh đó.",
  "permission.starter_or_member.retry":
    "Chỉ người tạo biên bản này hoặc thành viên (không phải khách) của kênh của biên bản mới có thể thử lại, và chỉ khi đang ở trong kênh đó.",
  "permission.channel_member":
    "Chỉ thành viên (không phải khách) của kênh này mới có thể đổi cài đặt biên bản của kênh.",
  "permission.cannot_tell":
    "Slack chưa xác nhận được rằng bạn có quyền làm việc này, nên không có gì thay đổi.",
  "permission.not_this_job": "Nút đó không thuộc về biên bản này.",
  "permission.destination.bot_not_in":
    "Hãy mời tôi vào cuộc trò chuyện đó trước (/invite @Meeting Notes), hoặc chọn nơi khác.",
  "permission.destination.user_not_in": "Hãy chọn một cuộc trò chuyện mà bạn tham gia.",
  "permission.destination.unknown":
    "Tôi không kiểm tra được cuộc trò chuyện đó. Hãy thử lại hoặc chọn nơi khác.",
  "permission.recording":
    "Hãy chọn bản ghi âm của chính bạn, hoặc bản được chia sẻ trong cuộc trò chuyện bạn tham gia.",
  "permission.recent": "Hãy chọn một bản ghi âm trong danh sách.",
  "permission.template":
    "Hãy chọn mẫu Word do bạn tải lên, hoặc mẫu được chia sẻ trong cuộc trò chuyện bạn tham gia.",

  "store.unavailable":
    "Lúc này tôi chưa làm được việc đó: bộ lưu trữ của tôi không phản hồi. Hãy thử lại sau một phút.",
  "store.upload_waiting":
    "Tôi đã nhận {file}: tôi sẽ bắt đầu ngay khi bộ lưu trữ của tôi hoạt động trở lại.",
  "store.upload_lost":
    "Tôi không nhận được {file}: bộ lưu trữ của tôi đang không hoạt động. Hãy chia sẻ lại sau vài phút.",
};
